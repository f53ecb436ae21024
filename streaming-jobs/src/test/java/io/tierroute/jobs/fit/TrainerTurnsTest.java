package io.tierroute.jobs.fit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TrainerTurnsTest {
    private static final long GRACE = 1_000;

    @Test
    void oneScopeHoldsTheThreadAndTheOthersWaitInTheOrderTheyAsked() {
        TrainerTurns turns = new TrainerTurns(GRACE, 0);
        assertThat(turns.ask("a", 0)).as("the thread is free").isTrue();
        assertThat(turns.ask("b", 10)).isFalse();
        assertThat(turns.ask("c", 20)).isFalse();
        assertThat(turns.ask("b", 30)).as("asking again keeps b's place").isFalse();
        assertThat(turns.waitingCount()).isEqualTo(2);
        assertThat(turns.waitedNanos("b", 110)).as("from b's first ask").isEqualTo(100);
        assertThat(turns.waitedNanos("a", 110)).as("a holds, waits for nothing").isZero();

        turns.release("a", 200);
        assertThat(turns.ask("c", 210)).as("b is first in line, within its grace").isFalse();
        assertThat(turns.ask("a", 220)).as("a asks again: behind c").isFalse();
        assertThat(turns.ask("b", 230)).isTrue();
        assertThat(turns.holds("b")).isTrue();
        assertThat(turns.isWaiting("b")).isFalse();

        turns.release("b", 300);
        assertThat(turns.ask("a", 310)).as("c before a").isFalse();
        assertThat(turns.ask("c", 320)).isTrue();
        turns.release("c", 400);
        assertThat(turns.ask("a", 410)).isTrue();
        assertThat(turns.waitingCount()).isZero();
    }

    @Test
    void aFirstInLineThatDoesNotClaimTheFreeThreadLosesItsPlaceOneAtATime() {
        TrainerTurns turns = new TrainerTurns(GRACE, 0);
        assertThat(turns.ask("a", 0)).isTrue();
        turns.ask("gone1", 1);
        turns.ask("gone2", 2);
        turns.ask("c", 3);
        turns.release("a", 100);
        assertThat(turns.ask("c", 100 + GRACE)).as("gone1's grace not over yet").isFalse();
        assertThat(turns.ask("c", 101 + GRACE)).as("gone1 dropped; gone2 gets a grace of its own").isFalse();
        assertThat(turns.isWaiting("gone1")).isFalse();
        assertThat(turns.isWaiting("gone2")).isTrue();
        assertThat(turns.ask("c", 101 + 2 * GRACE)).as("gone2's grace not over yet").isFalse();
        assertThat(turns.ask("c", 102 + 2 * GRACE)).as("gone2 dropped: c is first").isTrue();
        assertThat(turns.waitingCount()).isZero();
    }

    @Test
    void aWithdrawnScopeLeavesTheLineAndReleaseIsTheHoldersOnly() {
        TrainerTurns turns = new TrainerTurns(GRACE, 0);
        turns.ask("a", 0);
        turns.ask("b", 1);
        turns.ask("c", 2);
        turns.withdraw("b");
        turns.release("a", 10);
        assertThat(turns.ask("c", 11)).as("b left the line: c is first").isTrue();
        assertThatThrownBy(() -> turns.release("a", 12)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("c does");
        assertThatThrownBy(() -> turns.ask("c", 13)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("already holds");
    }
}
