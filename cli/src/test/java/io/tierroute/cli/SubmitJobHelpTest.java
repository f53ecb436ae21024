package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The job's flags are listed by {@code submit --job-help}, without a cluster: Flink's REST API cannot run its --help. */
class SubmitJobHelpTest {

    @Test
    void jobHelpListsTheJobsFlagsWithoutAFlinkUrl() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = TierrouteCommand.execute(new String[] {"submit", "--job-help"}, new PrintWriter(out, true),
                new PrintWriter(err, true));
        assertThat(rc).as(err.toString()).isZero();
        assertThat(out.toString()).startsWith("tierroute fitting job; flags")
                .containsPattern("--publish-interval +snapshot cadence per scope .*\\(default PT1S\\)")
                .containsPattern("--gate-max-jump-factor +validation gate: .*\\s+.*\\(default 4.0\\)")
                .as("the flag submit refuses as a job argument says where it comes from")
                .containsPattern("--bootstrap-servers +set by submit's --bootstrap");
    }

    @Test
    void aJobFlagBeforeTheDoubleDashIsToldWhereItGoes() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = TierrouteCommand.execute(new String[] {"submit", "--flink", "http://127.0.0.1:1", "--bootstrap", "h:1",
                "--parallelism", "1"}, new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(rc).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown option: '--parallelism'")
                .contains("'--parallelism' is a flag of the job: give it after '--'");

        StringWriter err2 = new StringWriter();
        assertThat(TierrouteCommand.execute(new String[] {"submit", "--flink", "http://127.0.0.1:1", "--bootstrap", "h:1",
                "--bootstrap-servers", "k:1"}, new PrintWriter(new StringWriter(), true), new PrintWriter(err2, true)))
                .isEqualTo(2);
        assertThat(err2.toString()).as("the one job flag submit sets itself is not sent after '--'")
                .contains("give the Kafka address with --bootstrap").doesNotContain("give it after '--'");
    }

    @Test
    void aClusterWithoutRocksDbGetsAHintBesideFlinksError() {
        assertThat(SubmitAdvice.hint("HTTP 400 ... java.lang.ClassNotFoundException: org.apache.flink.state.rocksdb."
                + SubmitAdvice.ROCKSDB_FACTORY)).contains("-- --state-backend hashmap").contains("Flink distribution");
        assertThat(SubmitAdvice.hint("HTTP 400 ... some other failure")).isEmpty();
        assertThat(SubmitAdvice.hint(null)).isEmpty();
    }
}
