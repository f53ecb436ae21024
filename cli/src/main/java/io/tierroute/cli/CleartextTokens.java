package io.tierroute.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * The dashboard's warning when its Bearer tokens would cross the network in cleartext: bound beyond loopback, serving
 * plain HTTP (no {@code --tls-keystore}), with a token configured. A warning and not a refusal: a TLS-terminating proxy
 * or a private network may stand in front of it, which the command cannot see.
 */
final class CleartextTokens {

    private CleartextTokens() {}

    /** What to warn of, or empty when no token can leave the machine unencrypted. */
    static Optional<String> warning(String host, boolean tls, boolean tokenConfigured) {
        if (tls || !tokenConfigured || isLoopback(host)) {
            return Optional.empty();
        }
        return Optional.of("WARN: --host " + host + " serves plain HTTP beyond loopback: the tokens (sent as "
                + "'Authorization: Bearer', or as a browser login's password) cross the network in cleartext, for anyone "
                + "on the path to read and reuse; give --tls-keystore, or keep --host on loopback behind a proxy that "
                + "terminates TLS");
    }

    /**
     * Whether {@code host} names a loopback address. A name that does not resolve is not (the start then fails on it
     * anyway); a literal address is read without a lookup.
     */
    static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
