package io.tierroute.cli;

import picocli.CommandLine;

import java.util.List;
import java.util.function.Supplier;

/**
 * The registry of {@code tierroute} subcommands: one line per command, in the order {@code --help}
 * lists them. A new command (demo, submit, snapshots, replay, bench) is a class with picocli's
 * {@code @Command} and one entry here — no classpath scanning.
 */
final class Subcommands {

    private static final List<Supplier<Object>> ALL = List.of(
            DemoCommand::new,      // tierroute demo: Kafka, Flink + the fitting job, the live fleet, the selector, the dashboard
            SelectorCommand::new,  // tierroute selector --config FILE: the routing server
            DashboardCommand::new, // tierroute dashboard --bootstrap HOST:PORT: the fitted-parameter dashboard
            SnapshotsCommand::new, // tierroute snapshots list|show|diff|pin|unpin|rollback|trim: snapshot history, pins, retention
            ClusterCommand::new,   // tierroute cluster up|down|status: a local Kafka broker process + Flink session cluster
            SubmitCommand::new,    // tierroute submit --flink URL --bootstrap HOST:PORT: the fitting job on a Flink cluster
            FleetCommand::new,     // tierroute fleet --bootstrap HOST:PORT: the live simulated fleet on that Kafka
            BenchCommand::new      // tierroute bench routing ...: policies compared on the fleet simulator
    );

    private Subcommands() {}

    static void register(CommandLine root) {
        for (Supplier<Object> s : ALL) {
            root.addSubcommand(s.get());
        }
    }
}
