package io.tierroute.cli;

import io.tierroute.deploy.local.LoopbackPorts;

/** A port given on the command line of {@code demo} or {@code fleet}, where 0 means any free port. */
final class PortFlags {

    private PortFlags() {
    }

    /**
     * Fails with a {@link LoopbackPorts.PortTakenException} naming {@code flag} when {@code port} (not 0) cannot be bound
     * on loopback, and how to pick another.
     */
    static void requireFree(int port, String flag) {
        if (port == 0) {
            return;
        }
        try {
            LoopbackPorts.requireFree(port, flag);
        } catch (LoopbackPorts.PortTakenException e) {
            throw new LoopbackPorts.PortTakenException(e.getMessage() + "; pick another with " + flag
                    + " N (0 = any free port)");
        }
    }
}
