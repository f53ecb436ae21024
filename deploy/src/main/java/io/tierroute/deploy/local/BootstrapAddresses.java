package io.tierroute.deploy.local;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/** A Kafka bootstrap list ({@code [PROTOCOL://]host:port[,...]}) probed with a plain TCP connect, before any client. */
public final class BootstrapAddresses {
    private static final int CONNECT_TIMEOUT_MS = 500;

    private BootstrapAddresses() {
    }

    /**
     * Whether some address of {@code bootstrap} accepts a TCP connection within half a second (each address a name
     * resolves to is tried, as Kafka's clients do). An entry that is not {@code host:port}, or whose name does not
     * resolve, counts as listening: the Kafka client, which knows the format best, reports it (or the command, which
     * asks {@link #noneResolves} first).
     */
    public static boolean anyListening(String bootstrap) {
        for (String one : bootstrap.split(",")) {
            Entry entry = Entry.parse(one);
            if (entry == null) {
                return true;
            }
            InetAddress[] resolved;
            try {
                resolved = InetAddress.getAllByName(entry.host());
            } catch (UnknownHostException e) {
                return true;
            }
            for (InetAddress a : resolved) {
                if (accepts(a, entry.port())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The hosts of {@code bootstrap} when none of them resolves (each name once, in order), else an empty list. Kafka's
     * clients resolve each entry the same way ({@code InetAddress.getAllByName}) and, when none resolves, refuse to be
     * built ("No resolvable bootstrap urls given in bootstrap.servers") after a WARN of their own per entry; a command
     * that asks first can say it once, in its own words. An entry that is not {@code host:port} resolves here (the
     * Kafka client reports it), and a list where some host resolves is for the clients to use.
     */
    public static List<String> noneResolves(String bootstrap) {
        List<String> unresolved = new ArrayList<>();
        for (String one : bootstrap.split(",")) {
            Entry entry = Entry.parse(one);
            if (entry == null) {
                return List.of();
            }
            try {
                InetAddress.getAllByName(entry.host());
                return List.of();
            } catch (UnknownHostException e) {
                if (!unresolved.contains(entry.host())) {
                    unresolved.add(entry.host());
                }
            }
        }
        return unresolved;
    }

    /** One {@code [PROTOCOL://]host:port} entry of a bootstrap list, the host without brackets. */
    private record Entry(String host, int port) {

        /** The entry, or null when it is not {@code host:port} with a port in [1, 65535]. */
        static Entry parse(String entry) {
            String address = entry.strip().replaceFirst("^[A-Za-z][A-Za-z0-9_+.-]*://", "");
            int colon = address.lastIndexOf(':');
            if (colon <= 0 || colon == address.length() - 1) {
                return null;
            }
            int port;
            try {
                port = Integer.parseInt(address.substring(colon + 1));
            } catch (NumberFormatException e) {
                return null;
            }
            if (port < 1 || port > 65535) {
                return null;
            }
            return new Entry(address.substring(0, colon).replace("[", "").replace("]", ""), port);
        }
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
