package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.sim.workload.Workloads;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code bench routing --list-policies}: every policy, and every workload with the line that says what it models. */
class BenchListTest {

    @Test
    void everyWorkloadIsListedWithItsDescription() {
        PrintStream out = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        int code;
        try {
            code = TierrouteCommand.execute(new String[] {"bench", "routing", "--list-policies"},
                    new PrintWriter(new StringWriter(), true), new PrintWriter(new StringWriter(), true));
        } finally {
            System.setOut(out);
        }
        String text = captured.toString(StandardCharsets.UTF_8);
        assertThat(code).isZero();
        assertThat(text).contains("tierroute-fitted", "llmd-precise", "oracle");
        for (String name : Workloads.names()) {
            assertThat(text).as(name).containsPattern("(?m)^  " + name + " +" + java.util.regex.Pattern.quote(
                    Workloads.named(name).description()) + "$");
        }
        assertThat(text).contains("multi-turn chat");
    }

    /** --list-policies runs nothing: a run flag beside it was ignored; refused, naming it, with nothing listed. */
    @Test
    void runFlagsBesideListPoliciesAreRefusedNamingThem() {
        for (String[] extra : new String[][] {{"--workers", "0"}, {"--workload", "chat"}, {"--request-logs"}}) {
            StringWriter err = new StringWriter();
            PrintStream stdout = System.out;
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            int code;
            try {
                code = TierrouteCommand.execute(java.util.stream.Stream.concat(java.util.stream.Stream.of("bench",
                                "routing", "--list-policies"), java.util.Arrays.stream(extra)).toArray(String[]::new),
                        new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
            } finally {
                System.setOut(stdout);
            }
            assertThat(code).as(extra[0]).isEqualTo(2);
            assertThat(err.toString()).as(extra[0]).isEqualTo("tierroute bench routing: --list-policies lists the "
                    + "policies and workloads and runs nothing; it takes no " + extra[0] + System.lineSeparator());
            assertThat(captured.toString(StandardCharsets.UTF_8)).as("nothing listed").isEmpty();
        }
    }

    /** The --workload help of bench routing and of the live fleet (demo, fleet) names every registered workload. */
    @Test
    void theWorkloadOptionsHelpNamesEveryWorkload() {
        for (String[] command : new String[][] {{"bench", "routing", "--help"}, {"fleet", "--help"}, {"demo", "--help"}}) {
            StringWriter out = new StringWriter();
            PrintStream stdout = System.out;
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            try {
                TierrouteCommand.execute(command, new PrintWriter(out, true), new PrintWriter(new StringWriter(), true));
            } finally {
                System.setOut(stdout);
            }
            String help = (out + captured.toString(StandardCharsets.UTF_8)).replaceAll("\\s+", " ");
            for (String name : Workloads.names()) {
                assertThat(help).as(String.join(" ", command) + " names " + name).contains(name);
            }
        }
    }
}
