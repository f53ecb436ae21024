package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.deploy.local.ProjectTopics;
import io.tierroute.sim.live.LiveWorkload;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code --duration} counts from the end of the start-up (the URLs printed), as --help says ("start-up not counted"):
 * the demo starts its replay early in its start-up (the fitting job needs samples first), and that part is not counted.
 */
class LiveStatusDeadlineTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void theDurationCountsFromTheEndOfTheStartUp() {
        assertThat(LiveStatus.deadlineNanos(Duration.ofSeconds(30), 107 * SECOND)).isEqualTo(137 * SECOND);
    }

    @Test
    void withoutADurationThereIsNoDeadline() {
        assertThat(LiveStatus.deadlineNanos(null, 107 * SECOND)).isEqualTo(Long.MAX_VALUE);
    }

    /** The tick before the deadline ends at it: a --duration of 500 ms ran a whole 1 s tick (found in review). */
    @Test
    void theLastWaitEndsAtTheDeadline() {
        long now = 50 * SECOND;
        assertThat(LiveStatus.untilNextCheck(1_000, now + SECOND / 2, now)).isEqualTo(500);
        assertThat(LiveStatus.untilNextCheck(1_000, now + 3 * SECOND, now)).as("a tick").isEqualTo(1_000);
        assertThat(LiveStatus.untilNextCheck(1_000, now + 1, now)).as("at least 1 ms").isEqualTo(1);
        assertThat(LiveStatus.untilNextCheck(1_000, now - SECOND, now)).as("past it").isEqualTo(1);
        assertThat(LiveStatus.untilNextCheck(1_000, Long.MAX_VALUE, now)).as("no deadline").isEqualTo(1_000);
        assertThat(LiveStatus.untilNextCheck(1_000, Long.MAX_VALUE, -now)).as("no deadline, a negative clock").isEqualTo(1_000);
    }

    /**
     * A fleet whose replay began 2 s before its status loop (as the demo's does while it waits for --min-samples and
     * submits its job) runs its --duration of 1 s after that loop began. Before, the deadline was the replay's start + 1 s,
     * already past: it stopped at the first tick and said "ran 2 s wall after a 0 s start-up". Its summary's request
     * counts add up (in flight at the stop said) and its fleet records are counted as the broker acknowledged them.
     */
    @Test
    void aReplayStartedDuringTheStartUpRunsItsWholeDurationAfterIt() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            ProjectTopics.create(kafka.bootstrapServers(), (short) 1);
            var settings = new FleetRun.Settings(kafka.bootstrapServers(), Map.of(), 2, 20, "default", 1, 0, null,
                    "UNSET_TOKEN_ENV", false);
            LiveWorkload work = LiveWorkload.load(null, "chat", 2, 1, 5_000, 1); // far more than 3 s replay
            long begin = System.nanoTime();
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            long loopTook;
            try (FleetRun run = FleetRun.start(settings, work, begin, () -> false);
                 StopOnCtrlC stop = new StopOnCtrlC("live-status-deadline-test")) {
                run.startFleet();
                Thread.sleep(2_000); // the demo's wait for --min-samples and its job's submission
                long t0 = System.nanoTime();
                int rc = LiveStatus.run("fleet", run, stop, false, Duration.ofMillis(100), Duration.ofSeconds(1),
                        LiveStatus.Watched.NONE, new PrintWriter(out, true), new PrintWriter(err, true));
                loopTook = (System.nanoTime() - t0) / 1_000_000;
                assertThat(rc).as(out + "" + err).isZero();
            }
            String summary = out.toString();
            assertThat(loopTook).as("the loop ran the whole --duration after the start-up:\n" + summary)
                    .isGreaterThanOrEqualTo(1_000L) // the old deadline, from the replay's start, ended it at once
                    .isLessThan(30_000L); // then the stop: the fleet's join, the decisions' and records' settling (≤ 20 s)
            assertThat(summary).contains("tierroute fleet: stopping (--duration reached)")
                    .containsPattern("ran [12] s wall after a \\d+ s start-up \\(the replay began [23] s before its end\\), "
                            + "\\d+ s simulated; ");

            Matcher requests = Pattern.compile("requests: (\\d+) routed, (\\d+) completed, (\\d+) failed, (\\d+) in flight "
                    + "at the stop \\(of 5000 in the workload\\)").matcher(summary);
            assertThat(requests.find()).as(summary).isTrue();
            long routed = Long.parseLong(requests.group(1));
            assertThat(Long.parseLong(requests.group(2)) + Long.parseLong(requests.group(3))).as(requests.group())
                    .isLessThanOrEqualTo(routed);
            assertThat(routed).as(requests.group()).isPositive().isEqualTo(Long.parseLong(requests.group(2))
                    + Long.parseLong(requests.group(3)) + Long.parseLong(requests.group(4)));

            Matcher records = Pattern.compile("fleet records: (\\d+) acknowledged of (\\d+) sent \\(0 failed, 0 dropped at "
                    + "the close\\): (\\d+) telemetry, (\\d+) KV batches, (\\d+) completions").matcher(summary);
            assertThat(records.find()).as(summary).isTrue();
            assertThat(records.group(1)).as(records.group()).isEqualTo(records.group(2));
            assertThat(Long.parseLong(records.group(1))).as(records.group()).isEqualTo(Long.parseLong(records.group(3))
                    + Long.parseLong(records.group(4)) + Long.parseLong(records.group(5)));
            assertThat(Long.parseLong(records.group(5))).as("every completion acknowledged: " + summary)
                    .isEqualTo(Long.parseLong(requests.group(2)) + Long.parseLong(requests.group(3)));
        }
    }

    @Test
    void aDurationIsSaidToTheMillisecond() {
        assertThat(RunLengthOptions.said(Duration.ofMillis(500))).isEqualTo("500 ms");
        assertThat(RunLengthOptions.said(Duration.ofMillis(1500))).isEqualTo("1.5 s");
        assertThat(RunLengthOptions.said(Duration.ofSeconds(20))).isEqualTo("20 s");
        assertThat(RunLengthOptions.said(Duration.ofMinutes(10))).isEqualTo("600 s");
        assertThat(RunLengthOptions.said(Duration.ofNanos(1))).isEqualTo("0.000001 ms");
    }
}
