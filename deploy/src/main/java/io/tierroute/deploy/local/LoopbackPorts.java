package io.tierroute.deploy.local;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * Port checks on 127.0.0.1, the interface the local cluster's Kafka and Flink listen on, and on every interface for
 * Flink's Prometheus reporter, which binds them all.
 */
public final class LoopbackPorts {

    private LoopbackPorts() {}

    /**
     * A port on 127.0.0.1 that could be bound just now (tests, {@code 0} options), chosen BELOW the
     * kernel's ephemeral range: a port the OS hands out (bind(0), or the source port of any outgoing
     * connection, e.g. a Flink JobManager starting beside the broker) can be taken again before the
     * process it was chosen for binds it. A CI run lost the broker's controller port exactly so.
     */
    public static int free() {
        int below = ephemeralRangeStart();
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 200 && below > MIN_CHOSEN_PORT + 1000; attempt++) {
            int port = random.nextInt(MIN_CHOSEN_PORT, below);
            if (bindable(port)) {
                return port;
            }
        }
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port on 127.0.0.1: " + e.getMessage(), e);
        }
    }

    /** Ports below this are left to services configured by hand. */
    private static final int MIN_CHOSEN_PORT = 20_000;

    /** The first port of the kernel's ephemeral range (Linux's file; the IANA range's start elsewhere). */
    private static int ephemeralRangeStart() {
        try {
            // readAllLines, not readString: /proc files report size 0, and readString returned "3" here
            String range = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0);
            return Integer.parseInt(range.trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 49_152;
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Fails with a message naming {@code what} (e.g. "the Kafka client port (--kafka-port)") when
     * {@code port} cannot be bound on 127.0.0.1.
     */
    public static void requireFree(int port, String what) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(what + " must be in [1, 65535], got " + port);
        }
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        } catch (IOException e) {
            throw new PortTakenException("port " + port + " (" + what + ") is taken on 127.0.0.1: " + e.getMessage());
        }
    }

    /**
     * As {@link #requireFree}, for a port bound on every interface (Flink's Prometheus reporter): one taken on any
     * interface, also one 127.0.0.1 does not answer on, fails.
     */
    public static void requireFreeEverywhere(int port, String what) {
        requireFree(port, what);
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(port));
        } catch (IOException e) {
            throw new PortTakenException("port " + port + " (" + what + ") is taken on an interface of this machine: "
                    + e.getMessage());
        }
    }

    /** Whether something accepts connections on 127.0.0.1:{@code port}. */
    public static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** A port the local cluster needs is bound by something else. */
    public static final class PortTakenException extends IllegalStateException {
        public PortTakenException(String message) {
            super(message);
        }
    }
}
