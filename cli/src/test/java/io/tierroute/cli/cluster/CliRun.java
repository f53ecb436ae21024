package io.tierroute.cli.cluster;

import io.tierroute.cli.TierrouteCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

/** One {@code tierroute} command run in this JVM, as the cluster tests run them: its exit code and what it printed. */
final class CliRun {
    final int rc;
    final String out;
    final String err;

    private CliRun(int rc, String out, String err) {
        this.rc = rc;
        this.out = out;
        this.err = err;
    }

    String all() {
        return out + "\n" + err;
    }

    static CliRun of(List<String> args) {
        return of(args.toArray(String[]::new));
    }

    static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = TierrouteCommand.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new CliRun(rc, out.toString(), err.toString());
    }
}
