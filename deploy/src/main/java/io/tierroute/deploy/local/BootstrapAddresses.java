package io.tierroute.deploy.local;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/** A Kafka bootstrap list ({@code host:port[,host:port...]}) probed with a plain TCP connect, before any client. */
final class BootstrapAddresses {
    private static final int CONNECT_TIMEOUT_MS = 500;

    private BootstrapAddresses() {
    }

    /**
     * Whether some address of {@code bootstrap} accepts a TCP connection within half a second. An entry that is not
     * {@code host:port} counts as listening, so that the Kafka client, which knows the format best, reports it.
     */
    static boolean anyListening(String bootstrap) {
        for (String entry : bootstrap.split(",")) {
            String address = entry.strip();
            int colon = address.lastIndexOf(':');
            if (colon <= 0 || colon == address.length() - 1) {
                return true;
            }
            String host = address.substring(0, colon).replace("[", "").replace("]", "");
            int port;
            try {
                port = Integer.parseInt(address.substring(colon + 1));
            } catch (NumberFormatException e) {
                return true;
            }
            if (port < 1 || port > 65535 || accepts(host, port)) {
                return true;
            }
        }
        return false;
    }

    private static boolean accepts(String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
            return true;
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
    }
}
