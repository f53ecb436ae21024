package io.tierroute.deploy.local;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;

/** A Kafka bootstrap list ({@code [PROTOCOL://]host:port[,...]}) probed with a plain TCP connect, before any client. */
public final class BootstrapAddresses {
    private static final int CONNECT_TIMEOUT_MS = 500;

    private BootstrapAddresses() {
    }

    /**
     * Whether some address of {@code bootstrap} accepts a TCP connection within half a second (each address a name
     * resolves to is tried, as Kafka's clients do). An entry that is not {@code host:port}, or whose name does not
     * resolve, counts as listening: the Kafka client, which knows the format and the resolver best, reports it.
     */
    public static boolean anyListening(String bootstrap) {
        for (String entry : bootstrap.split(",")) {
            String address = entry.strip().replaceFirst("^[A-Za-z][A-Za-z0-9_+.-]*://", "");
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
            if (port < 1 || port > 65535) {
                return true;
            }
            InetAddress[] resolved;
            try {
                resolved = InetAddress.getAllByName(host);
            } catch (UnknownHostException e) {
                return true;
            }
            for (InetAddress a : resolved) {
                if (accepts(a, port)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean accepts(InetAddress address, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address, port), CONNECT_TIMEOUT_MS);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
