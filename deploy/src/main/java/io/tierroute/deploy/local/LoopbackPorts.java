package io.tierroute.deploy.local;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** Port checks on 127.0.0.1, the only interface the local cluster listens on. */
public final class LoopbackPorts {

    private LoopbackPorts() {}

    /** A port in the private range that a fresh socket could bind just now (tests, {@code 0} options). */
    public static int free() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port on 127.0.0.1: " + e.getMessage(), e);
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
