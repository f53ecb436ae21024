package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command that takes {@code -V/--version} prints the version: the snapshots and cluster subcommands took the flag
 * and printed nothing (exit 0), having no version provider. Walks the whole command tree, so a command added later is
 * checked too.
 */
class VersionEverywhereTest {

    @Test
    void everyCommandsVersionFlagPrintsTheVersion() {
        String expected = new TierrouteCommand.Version().getVersion()[0];
        List<List<String>> commands = new ArrayList<>();
        walk(TierrouteCommand.commandLine(), new ArrayList<>(), commands);
        assertThat(commands).as("the tree was walked").hasSizeGreaterThan(15)
                .contains(List.of("snapshots", "list"), List.of("cluster", "up"), List.of("snapshots", "trim"));
        for (List<String> path : commands) {
            for (String flag : new String[] {"--version", "-V"}) {
                List<String> args = new ArrayList<>(path);
                args.add(flag);
                StringWriter out = new StringWriter();
                StringWriter err = new StringWriter();
                int rc = TierrouteCommand.execute(args.toArray(String[]::new), new PrintWriter(out, true),
                        new PrintWriter(err, true));
                assertThat(rc).as(args + ": " + err).isZero();
                assertThat(out.toString()).as(String.join(" ", args)).startsWith(expected + System.lineSeparator());
            }
        }
    }

    /** Collects the path of every command below {@code c} (and {@code c} itself unless the root) with a --version option. */
    private static void walk(CommandLine c, List<String> path, List<List<String>> found) {
        if (!path.isEmpty() && c.getCommandSpec().findOption("--version") != null) {
            found.add(List.copyOf(path));
        }
        for (var sub : c.getSubcommands().entrySet()) {
            if (sub.getValue().getCommandSpec().name().equals(sub.getKey())) { // not an alias
                List<String> below = new ArrayList<>(path);
                below.add(sub.getKey());
                walk(sub.getValue(), below, found);
            }
        }
    }
}
