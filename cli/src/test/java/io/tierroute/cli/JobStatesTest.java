package io.tierroute.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JobStatesTest {

    @Test
    void aJobThatLostItsTaskManagerOrFailedIsHaltedAndSaysWhatIsServed() {
        for (String s : new String[] {"RESTARTING", "FAILING", "FAILED", "SUSPENDED"}) {
            assertThat(JobStates.halted(s)).as(s).isTrue();
            assertThat(JobStates.explain(s)).as(s).contains("selectors keep serving the last accepted one");
        }
        assertThat(JobStates.explain("RESTARTING")).contains("waits for task slots");
    }

    @Test
    void runningStartingAndEndedJobsAreNot() {
        for (String s : new String[] {"RUNNING", "CREATED", "INITIALIZING", "CANCELLING", "CANCELED", "FINISHED"}) {
            assertThat(JobStates.halted(s)).as(s).isFalse();
        }
    }
}
