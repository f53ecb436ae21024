package io.tierroute.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** When `tierroute dashboard` warns that its tokens cross the network in cleartext, and when it has no cause to. */
class CleartextTokensTest {

    @Test
    void aTokenServedOverPlainHttpBeyondLoopbackIsWarnedOf() {
        for (String host : new String[] {"0.0.0.0", "::", "192.0.2.10"}) {
            assertThat(CleartextTokens.warning(host, false, true)).as(host).hasValueSatisfying(w -> assertThat(w)
                    .startsWith("WARN: --host " + host + " serves plain HTTP beyond loopback")
                    .contains("cleartext").contains("--tls-keystore"));
        }
    }

    @Test
    void loopbackTlsOrNoTokenGiveNoWarning() {
        for (String host : new String[] {"127.0.0.1", "127.0.0.2", "::1", "localhost"}) {
            assertThat(CleartextTokens.warning(host, false, true)).as(host).isEmpty();
        }
        assertThat(CleartextTokens.warning("0.0.0.0", true, true)).as("HTTPS").isEmpty();
        assertThat(CleartextTokens.warning("0.0.0.0", false, false)).as("no token to leak").isEmpty();
    }

    @Test
    void aNameThatDoesNotResolveIsNotTakenForLoopback() {
        assertThat(CleartextTokens.isLoopback("no.such.host.invalid")).isFalse();
    }
}
