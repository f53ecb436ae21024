package io.tierroute.selector.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When a failed request's claims may be withdrawn: never under a request that may rely on them, nor past the bounds. */
class ComputingClaimsTest {
    private static final long TTL = 120_000_000_000L;

    private static ComputingClaims.Claim claim(int worker, int blocks, long now) {
        return new ComputingClaims.Claim(worker, new long[blocks], now, TTL);
    }

    @Test
    void aClaimIsWithdrawnUnlessALaterRequestOnItsWorkerIsRemembered() {
        ComputingClaims claims = new ComputingClaims();
        claims.made("a", claim(1, 8, 100));
        claims.made("elsewhere", claim(2, 8, 200));
        claims.made("before", claim(1, 8, 50));
        ComputingClaims.Claim a = claims.take("a");
        assertThat(claims.mayWithdraw(a, 300)).as("only an earlier claim and another worker's").isTrue();

        claims.made("a", a);
        claims.made("later", claim(1, 0, 150)); // placed by a's claim, claiming nothing itself
        a = claims.take("a");
        assertThat(claims.mayWithdraw(a, 300)).isFalse();
        claims.take("later");
        assertThat(claims.mayWithdraw(a, 300)).as("once the later one has output or failed").isTrue();
        assertThat(claims.mayWithdraw(claims.take("before"), 300)).isTrue();
        assertThat(claims.mayWithdraw(claim(3, 0, 300), 300)).as("nothing claimed, nothing to withdraw").isFalse();
    }

    @Test
    void aClaimNotRememberedStopsWithdrawalsUntilItsTtlHasPassed() {
        ComputingClaims claims = new ComputingClaims();
        claims.made("a", claim(1, 8, 0));
        claims.made("huge", claim(2, (int) ComputingClaims.MAX_BLOCKS, 10)); // past the bound: not remembered
        ComputingClaims.Claim a = claims.take("a");
        assertThat(a).isNotNull();
        assertThat(claims.take("huge")).isNull();
        assertThat(claims.mayWithdraw(a, 20)).as("the forgotten claim may rely on any").isFalse();
        assertThat(claims.mayWithdraw(a, 10 + TTL)).isTrue();
    }

    @Test
    void expiredClaimsAreForgottenAndTheirBlocksFreed() {
        ComputingClaims claims = new ComputingClaims();
        claims.made("a", claim(1, (int) (ComputingClaims.MAX_BLOCKS / 2), 0));
        claims.made("b", claim(1, (int) (ComputingClaims.MAX_BLOCKS / 2), 1));
        claims.expire(TTL + 1);
        assertThat(claims.take("a")).isNull();
        assertThat(claims.take("b")).isNull();
        claims.made("c", claim(1, (int) ComputingClaims.MAX_BLOCKS, TTL + 2)); // fits again: the counter went back to 0
        assertThat(claims.take("c")).isNotNull();
    }
}
