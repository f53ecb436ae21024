package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every --scope takes the selector's rule (ScopeName): snapshots' subcommands and the dashboard refuse a name no
 * selector could serve as a usage error, before any connection (before, snapshots waited out --timeout and said the
 * broker was unreachable, and the dashboard started).
 */
class ScopeNameTest {

    private static final List<List<String>> COMMANDS = List.of(List.of("snapshots", "list"),
            List.of("snapshots", "show", "1"), List.of("snapshots", "diff", "1", "2"),
            List.of("snapshots", "pin", "1", "--reason", "test"), List.of("snapshots", "unpin", "--reason", "test"),
            List.of("snapshots", "rollback", "--reason", "test"), List.of("snapshots", "trim"),
            List.of("dashboard", "--port", "0"));

    @Test
    @Timeout(60) // a dashboard that took the scope would serve until stopped
    void aScopeTheSelectorsConfigurationRefusesIsAUsageErrorBeforeAnyConnection() {
        for (List<String> command : COMMANDS) {
            for (String[] bad : new String[][] {{"a#b", "--scope: must not contain '#' (it separates scope and version "
                    + "in params keys), got 'a#b'"}, {"s".repeat(257), "--scope: a scope has at most 256 characters, got 257"}}) {
                // a port nothing listens on: a connection attempt would be exit 1 after --timeout, not 2
                List<String> args = new ArrayList<>(command);
                args.addAll(List.of("--bootstrap", "127.0.0.1:9", "--scope", bad[0]));
                if (command.get(0).equals("snapshots")) {
                    args.addAll(List.of("--timeout", "3"));
                }
                StringWriter out = new StringWriter();
                StringWriter err = new StringWriter();
                int rc = TierrouteCommand.execute(args.toArray(String[]::new), new PrintWriter(out, true),
                        new PrintWriter(err, true));
                assertThat(rc).as(command + ": " + err).isEqualTo(2);
                assertThat(err.toString().lines().findFirst().orElse("")).as(command.toString()).isEqualTo(bad[1]);
                assertThat(out.toString()).as(command + ": nothing started").isEmpty();
            }
        }
    }
}
