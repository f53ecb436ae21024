package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The credentials example of 'snapshots --help', copied from an 80-column terminal, is a valid client config. */
class SnapshotsHelpTest {

    @Test
    void theCredentialsExamplePastesAsAValidConfigAt80Columns() throws Exception {
        StringWriter out = new StringWriter();
        int rc = TierrouteCommand.execute(new String[] {"snapshots", "--help"}, new PrintWriter(out, true),
                new PrintWriter(new StringWriter(), true));
        assertThat(rc).isZero();
        List<String> lines = out.toString().lines().toList();
        int from = lines.indexOf(lines.stream().filter(l -> l.contains("security.protocol=")).findFirst().orElseThrow());
        int to = from;
        while (!lines.get(to).strip().endsWith(";")) {
            to++;
        }
        List<String> example = lines.subList(from, to + 1);
        assertThat(example).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(80));
        Properties p = new Properties();
        p.load(new StringReader(String.join("\n", example)));
        assertThat(p.getProperty("sasl.jaas.config")).isEqualTo(
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"operator\" password=\"...\";");
        assertThat(p.getProperty("sasl.mechanism")).isEqualTo("PLAIN");
    }
}
