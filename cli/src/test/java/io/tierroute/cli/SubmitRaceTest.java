package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.cli.SingleWriterGuard.Candidate;
import io.tierroute.cli.SingleWriterGuard.LiveJob;
import io.tierroute.cli.SubmitRace.Keep;
import io.tierroute.cli.SubmitRace.Verdict;
import io.tierroute.cli.SubmitRace.Wait;
import io.tierroute.cli.SubmitRace.Yield;
import io.tierroute.deploy.local.FlinkRestClient.JobSummary;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Two submits that ran at once both passed the check before the upload; each then judges the jobs listed after its
 * own was started. Of every set of racing writers exactly the one Flink started first (then the smaller id) stays,
 * whichever of them looks first and whatever else each sees.
 */
class SubmitRaceTest {

    private static final String URL = "http://127.0.0.1:8081";
    private static final Set<String> NONE = Set.of();

    @Test
    void ofTwoRacingWritersTheOneStartedFirstStaysAndTheOtherYieldsNamingIt() {
        JobSummary a = new JobSummary("aaaa", "fit-a", "RUNNING", 1_000);
        JobSummary b = new JobSummary("0000", "fit-b", "INITIALIZING", 1_001);
        List<LiveJob> seen = List.of(fitting(a, "localhost:9092"), LiveJob.unreadable(b, "INITIALIZING"));
        assertThat(SubmitRace.verdict(a, seen, candidate(a, "localhost:9092"), NONE, URL)).isInstanceOf(Keep.class);
        Verdict vb = SubmitRace.verdict(b, seen, candidate(b, "127.0.0.1:9092"), NONE, URL);
        assertThat(vb).isInstanceOf(Yield.class);
        assertThat(((Yield) vb).to().job().job().id()).isEqualTo("aaaa");
        assertThat(((Yield) vb).to().why()).contains("job aaaa 'fit-a' is RUNNING on " + URL,
                "writes tierroute.params on Kafka localhost:9092", "'fit-b' would be a second writer");
    }

    @Test
    void onTheSameStartTimeTheSmallerJobIdStays() {
        JobSummary a = new JobSummary("0f", "fit-a", "CREATED", 5_000);
        JobSummary b = new JobSummary("1a", "fit-b", "CREATED", 5_000);
        List<LiveJob> seen = List.of(fitting(b, "k:9092"), fitting(a, "k:9092"));
        assertThat(SubmitRace.verdict(a, seen, candidate(a, "k:9092"), NONE, URL)).isInstanceOf(Keep.class);
        assertThat(SubmitRace.verdict(b, seen, candidate(b, "k:9092"), NONE, URL)).isInstanceOf(Yield.class);
    }

    @Test
    void theFirstToLookMaySeeOnlyItselfAndStaysWhichTheLaterAgreesWith() {
        // A looks before B's job is listed; B's job was then started after A's, so B ranks after A and yields.
        JobSummary a = new JobSummary("b2", "fit-a", "CREATED", 7_000);
        JobSummary b = new JobSummary("a1", "fit-b", "RUNNING", 7_300);
        assertThat(SubmitRace.verdict(a, List.of(fitting(a, "k:9092")), candidate(a, "k:9092"), NONE, URL))
                .isInstanceOf(Keep.class);
        assertThat(SubmitRace.verdict(b, List.of(fitting(a, "k:9092"), fitting(b, "k:9092")), candidate(b, "k:9092"),
                NONE, URL)).isInstanceOf(Yield.class);
    }

    @Test
    void onATieTheJobListedAloneFirstKeepsOnlyOnALaterListingWhichShowsTheOther() {
        // A=bb looks before B=aa (same start-time, ranked first) is listed: a lone listing says Keep, so both would keep
        JobSummary a = new JobSummary("bb", "fit-a", "RUNNING", 5_000);
        JobSummary b = new JobSummary("aa", "fit-b", "RUNNING", 5_000);
        assertThat(SubmitRace.verdict(a, List.of(fitting(a, "k:9092")), candidate(a, "k:9092"), NONE, URL))
                .isInstanceOf(Keep.class);
        long listed = 1_000_000_000L; // when A's first listing showed A: that Keep is not final
        assertThat(SubmitRace.confirmed(listed, listed - 1)).isFalse();
        assertThat(SubmitRace.confirmed(listed, listed + SubmitRace.CONFIRM_NANOS - 1)).isFalse();
        // the confirming listing, a poll later, shows B: A yields, B keeps
        List<LiveJob> both = List.of(fitting(a, "k:9092"), fitting(b, "k:9092"));
        assertThat(SubmitRace.confirmed(listed, listed + SubmitRace.CONFIRM_NANOS)).isTrue();
        assertThat(SubmitRace.verdict(a, both, candidate(a, "k:9092"), NONE, URL)).isInstanceOf(Yield.class);
        assertThat(SubmitRace.verdict(b, both, candidate(b, "k:9092"), NONE, URL)).isInstanceOf(Keep.class);
    }

    @Test
    void anEarlierJobBeingCancelledIsNeverTheOneThatStays() {
        JobSummary own = new JobSummary("b", "fit-b", "RUNNING", 2);
        JobSummary cancelling = new JobSummary("a", "fit-a", "CANCELLING", 1);
        assertThat(SubmitRace.rival(cancelling, own)).isFalse();
        assertThat(SubmitRace.verdict(own, List.of(fitting(cancelling, "k:9092")), candidate(own, "k:9092"), NONE, URL))
                .isInstanceOf(Keep.class);
        // one that is failing may restart: still a rival
        JobSummary failing = new JobSummary("a", "fit-a", "FAILING", 1);
        assertThat(SubmitRace.rival(failing, own)).isTrue();
        assertThat(SubmitRace.verdict(own, List.of(fitting(failing, "k:9092")), candidate(own, "k:9092"), NONE, URL))
                .isInstanceOf(Yield.class);
    }

    @Test
    void aRacerOfTheSameNameYieldsEvenBeforeTheEarlierJobCanBeRead() {
        JobSummary a = new JobSummary("a", "tierroute-fitting-job", "INITIALIZING", 1);
        JobSummary b = new JobSummary("b", "tierroute-fitting-job", "INITIALIZING", 2);
        Verdict v = SubmitRace.verdict(b, List.of(LiveJob.unreadable(a, "INITIALIZING")), candidate(b, "k:9092"), NONE, URL);
        assertThat(v).isInstanceOf(Yield.class);
        assertThat(((Yield) v).to().why()).contains("job a 'tierroute-fitting-job' is INITIALIZING",
                "no second live job of the same name");
    }

    @Test
    void anEarlierJobWhoseSettingsCannotBeReadYetIsWaitedForUnlessVouchedFor() {
        JobSummary a = new JobSummary("a", "fit-a", "INITIALIZING", 1);
        JobSummary b = new JobSummary("b", "fit-b", "RUNNING", 2);
        List<LiveJob> seen = List.of(LiveJob.unreadable(a, "Flink shows an INITIALIZING job's settings only once it runs"));
        Verdict v = SubmitRace.verdict(b, seen, candidate(b, "k:9092"), NONE, URL);
        assertThat(v).isInstanceOf(Wait.class);
        assertThat(((Wait) v).on().why()).contains("job a 'fit-a' is INITIALIZING", "its settings cannot be read",
                "--ignore-job a");
        assertThat(SubmitRace.verdict(b, seen, candidate(b, "k:9092"), Set.of("a"), URL)).isInstanceOf(Keep.class);
        // a later job that cannot be read is not ours to wait for: it judges ours in its own check
        JobSummary later = new JobSummary("c", "fit-c", "INITIALIZING", 3);
        assertThat(SubmitRace.verdict(b, List.of(LiveJob.unreadable(later, "INITIALIZING")), candidate(b, "k:9092"), NONE,
                URL)).isInstanceOf(Keep.class);
    }

    @Test
    void anEarlierWriterOnAnotherSpellingOfTheKafkaOrOneThatMayBeItIsYieldedTo() {
        JobSummary a = new JobSummary("a", "fit-a", "RUNNING", 1);
        JobSummary b = new JobSummary("b", "fit-b", "CREATED", 2);
        assertThat(SubmitRace.verdict(b, List.of(fitting(a, "KAFKA-1:9092, kafka-0:9092")), candidate(b, "kafka-0:9092"),
                NONE, URL)).isInstanceOf(Yield.class);
        // no broker in common may still be one cluster: refused as before the upload, so yielded to, unless vouched for
        Verdict maybe = SubmitRace.verdict(b, List.of(fitting(a, "kafka-2:9092")), candidate(b, "kafka-0:9092"), NONE, URL);
        assertThat(maybe).isInstanceOf(Yield.class);
        assertThat(((Yield) maybe).to().why()).contains("no broker in common", "--ignore-job a");
        assertThat(SubmitRace.verdict(b, List.of(fitting(a, "kafka-2:9092")), candidate(b, "kafka-0:9092"), Set.of("a"),
                URL)).isInstanceOf(Keep.class);
    }

    @Test
    void earlierJobsThatWriteNothingOfOursDoNotCountNorDoEndedOnes() {
        JobSummary own = new JobSummary("own", "fit-b", "RUNNING", 10);
        List<LiveJob> seen = List.of(
                LiveJob.read(new JobSummary("w", "wordcount", "RUNNING", 1), Map.of("x", "y"), List.of("Sink: counts")),
                fitting(new JobSummary("o", "fit-o", "RUNNING", 2), "other.params", "k:9092"),
                fitting(new JobSummary("f", "fit-f", "FAILED", 3), "k:9092"),
                fitting(new JobSummary("c", "fit-c", "CANCELED", 4), "k:9092"));
        assertThat(SubmitRace.verdict(own, seen, candidate(own, "k:9092"), NONE, URL)).isInstanceOf(Keep.class);
        // ours ended already (its start failed): nothing to cancel, the caller reports how it ended
        JobSummary failed = new JobSummary("own", "fit-b", "FAILED", 10);
        assertThat(SubmitRace.verdict(failed, List.of(fitting(new JobSummary("a", "fit-a", "RUNNING", 1), "k:9092")),
                candidate(failed, "k:9092"), NONE, URL)).isInstanceOf(Keep.class);
    }

    @Test
    void ofAnyNumberOfRacersThatSeeEachOtherExactlyTheFirstStays() {
        Random random = new Random(20261201);
        for (int round = 0; round < 200; round++) {
            int n = 2 + random.nextInt(5);
            List<JobSummary> racers = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                // few distinct start times, so ties are common
                racers.add(new JobSummary(Long.toHexString(random.nextLong() & Long.MAX_VALUE), "fit-" + i, "RUNNING",
                        random.nextInt(3)));
            }
            List<LiveJob> seen = new ArrayList<>();
            racers.forEach(r -> seen.add(fitting(r, random.nextBoolean() ? "localhost:9092" : "127.0.0.1:9092")));
            Collections.shuffle(seen, random);
            JobSummary first = Collections.min(racers, SubmitRace.RANK);
            for (JobSummary r : racers) {
                Verdict v = SubmitRace.verdict(r, seen, candidate(r, "[::1]:9092"), NONE, URL);
                assertThat(v).as("round %d, %s among %s", round, r, racers)
                        .isInstanceOf(r.equals(first) ? Keep.class : Yield.class);
            }
        }
    }

    private static Candidate candidate(JobSummary j, String bootstrap) {
        return new Candidate(j.name(), "tierroute.params", bootstrap);
    }

    private static LiveJob fitting(JobSummary j, String bootstrap) {
        return fitting(j, "tierroute.params", bootstrap);
    }

    /** A fitting job as its published parameters show it (WriterIdentity's keys). */
    private static LiveJob fitting(JobSummary j, String topic, String bootstrap) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("tierroute.role", "fitting-job");
        params.put("tierroute.params-topic", topic);
        params.put("tierroute.bootstrap-servers", bootstrap);
        params.put("tierroute.job-name", j.name());
        return LiveJob.read(j, params, List.of());
    }
}
