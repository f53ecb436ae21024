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
                .containsPattern("--publish-interval +default")
                .containsPattern("--gate-max-jump-factor +default");
    }
}
