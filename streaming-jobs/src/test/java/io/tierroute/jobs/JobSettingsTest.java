package io.tierroute.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class JobSettingsTest {
    /** --help: every flag on a line of its own with what it does and its default; the width of a terminal. */
    @Test
    void theHelpExplainsEveryFlagWithItsDefault() {
        String usage = JobSettings.usage();
        java.util.List<String> flagLines = usage.lines().filter(l -> l.startsWith("  --")).toList();
        java.util.List<String> flags = JobSettings.builder().build().toArguments().stream()
                .filter(a -> a.startsWith("--")).map(a -> a.replaceFirst("=.*", "")).distinct().toList();
        assertThat(flags).isNotEmpty();
        for (String flag : flags) {
            assertThat(flagLines).as(flag).anyMatch(l -> l.startsWith("  " + flag + " "));
        }
        assertThat(usage).contains("(default PT1S)").contains("(default none)").doesNotContain("default null");
        assertThat(usage.lines()).allMatch(l -> l.length() <= 118);
        assertThat(flagLines).allMatch(l -> l.matches("  --[a-z0-9-]+ +\\S.*"));
    }

    @Test
    void parsesFlagsOverTheDefaults() {
        JobSettings s = JobSettings.parse("--bootstrap-servers", "k:9092", "--parallelism=4",
            "--publish-interval", "250ms", "--forest-interval", "2m", "--state-backend", "rocksdb", "--gate-min-r2", "0.5");
        assertThat(s.bootstrapServers()).isEqualTo("k:9092");
        assertThat(s.parallelism()).isEqualTo(4);
        assertThat(s.publishInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(s.forestInterval()).isEqualTo(Duration.ofMinutes(2));
        assertThat(s.stateBackend()).isEqualTo("rocksdb");
        assertThat(s.gateMinR2()).isEqualTo(0.5);
        assertThat(s.checkpointInterval()).isEqualTo(Duration.ofMillis(500));
        assertThat(s.historyVersions()).isEqualTo(1000);
        assertThat(s.eventClock()).as("processing-time cadence by default").isFalse();
        assertThat(JobSettings.parse("--cadence-clock", "event", "--fail-after-inputs", "300").eventClock()).isTrue();
    }

    @Test
    void badArgumentsNameTheFlag() {
        assertThatThrownBy(() -> JobSettings.parse("--parallelism", "two"))
            .hasMessageContaining("--parallelism").hasMessageContaining("'two' is not an integer");
        assertThatThrownBy(() -> JobSettings.parse("--publish-interval", "soon"))
            .hasMessageContaining("--publish-interval").hasMessageContaining("a duration such as");
        assertThatThrownBy(() -> JobSettings.parse("--no-such-flag", "1")).hasMessageContaining("unknown flag --no-such-flag");
        assertThatThrownBy(() -> JobSettings.parse("--parallelism", "1", "--no-such-flag"))
            .as("last, it is unknown, not missing a value").hasMessageStartingWith("unknown flag --no-such-flag; known: ");
        assertThatThrownBy(() -> JobSettings.parse("--state-backend", "memory"))
            .hasMessageContaining("--state-backend must be hashmap or rocksdb");
        assertThatThrownBy(() -> JobSettings.parse("--parallelism", "0")).hasMessageContaining("--parallelism must be >= 1");
        assertThatThrownBy(() -> JobSettings.parse("--checkpoint-interval")).hasMessageContaining("needs a value");
        assertThatThrownBy(() -> JobSettings.parse("stray")).hasMessageContaining("unexpected argument 'stray'");
        assertThatThrownBy(() -> JobSettings.parse("--cadence-clock", "wall"))
            .hasMessageContaining("--cadence-clock must be processing or event, got wall");
        assertThatThrownBy(() -> JobSettings.parse("--fail-after-inputs", "-1")).hasMessageContaining("--fail-after-inputs");
        assertThatThrownBy(() -> JobSettings.parse("--scopes", "chat-(eu"))
            .hasMessageContaining("--scopes must be a regular expression that some scope can match, got 'chat-(eu'");
        assertThatThrownBy(() -> JobSettings.parse("--scopes", " "))
            .as("an unset variable: every record would be a dead letter").hasMessageContaining("--scopes must be");
        JobSettings named = JobSettings.parse("--scopes", "default|chat-[a-z]+");
        assertThat(named.scopes()).isEqualTo("default|chat-[a-z]+");
        assertThat(JobSettings.parse(named.toArguments().toArray(String[]::new))).as("round trip").isEqualTo(named);
        assertThat(JobSettings.builder().build().scopes()).as("every scope by default").isNull();
        assertThatThrownBy(() -> JobSettings.parse("--forest-max-bytes", "16777216"))
            .hasMessageContaining("--forest-max-bytes must be in [1, 2097152] bytes").hasMessageContaining("got 16777216");
        // the join's wall-clock backstop must not expire a side its event-time deadline still waits for
        assertThatThrownBy(() -> JobSettings.parse("--state-ttl", "20m"))
            .hasMessageContaining("--state-ttl must be at least --decision-timeout and --completion-grace, got PT20M");
        assertThatThrownBy(() -> JobSettings.parse("--state-ttl", "PT0.0005S", "--decision-timeout", "PT0.0001S",
            "--completion-grace", "PT0.0001S")).hasMessageContaining("--state-ttl must be at least 1 ms, got PT0.0005S");
        assertThatThrownBy(() -> JobSettings.parse("--completion-grace", "3h"))
            .as("the grace counts as well").hasMessageContaining("--state-ttl must be at least --decision-timeout");
        assertThat(JobSettings.parse("--state-ttl", "30m").stateTtl()).isEqualTo(Duration.ofMinutes(30));
        // a record within the skew moves event time by as much: as far as the grace, it expires every waiting completion
        assertThat(JobSettings.builder().build().warnings()).as("the defaults").isEmpty();
        assertThat(JobSettings.parse("--completion-grace", "30s").warnings()).singleElement().asString()
            .startsWith("--max-future-skew PT1M is not below --completion-grace PT30S: one record stamped that far ahead");
        assertThat(JobSettings.parse("--completion-grace", "30s", "--max-future-skew", "10s").warnings()).isEmpty();
        // timers aligned to whole milliseconds divided by zero below one; int chunk counts overflowed near 2^31 rows
        assertThatThrownBy(() -> JobSettings.parse("--publish-interval", "PT0.0005S"))
            .hasMessageContaining("--publish-interval must be at least 1 ms, got PT0.0005S");
        assertThatThrownBy(() -> JobSettings.parse("--forest-interval", "PT0.0005S"))
            .hasMessageContaining("--forest-interval must be at least 1 ms, got PT0.0005S");
        assertThatThrownBy(() -> JobSettings.parse("--sample-rows", "2147483647"))
            .hasMessageContaining("--sample-rows must be in [1, 10000000], got 2147483647");
        assertThatThrownBy(() -> JobSettings.parse("--telemetry-replay-rows", "2147483000"))
            .hasMessageContaining("--telemetry-replay-rows must be in [1, 10000000]");
        assertThat(JobSettings.parse("--sample-rows", "10000000").sampleRows()).isEqualTo(10_000_000);
        // near Long.MAX_VALUE ms, event time + skew and deadline + timeout wrapped negative: every record a dead
        // letter "in the future", every join side expired
        assertThatThrownBy(() -> JobSettings.parse("--max-future-skew", "999999999999999999d"))
            .hasMessageContaining("--max-future-skew must be at most 365 days, got 9223372036854775807ms");
        assertThatThrownBy(() -> JobSettings.parse("--decision-timeout", "366d", "--state-ttl", "366d"))
            .hasMessageContaining("--decision-timeout must be at most 365 days");
        assertThatThrownBy(() -> JobSettings.parse("--out-of-orderness", "400d"))
            .hasMessageContaining("--out-of-orderness must be at most 365 days");
        assertThat(JobSettings.parse("--state-ttl", "365d").stateTtl()).isEqualTo(JobSettings.MAX_DURATION);
        assertThatThrownBy(() -> JobSettings.parse("--transaction-timeout", "25d"))
            .hasMessageContaining("--transaction-timeout must be at most 2147483647 ms (Kafka's transaction.timeout.ms "
                + "is an int), got 2160000000ms");
    }

    @Test
    void argumentsParseBackToEqualSettings() {
        JobSettings defaults = JobSettings.builder().build();
        assertThat(JobSettings.parse(defaults.toArguments().toArray(String[]::new))).isEqualTo(defaults);
        assertThat(defaults.toArguments()).as("the unset checkpoint directory is left out, not written as 'null'")
            .noneMatch(a -> a.startsWith("--checkpoint-dir") || a.startsWith("--kafka-properties"));

        JobSettings varied = JobSettings.builder().set("bootstrap-servers", "a:1,b:2").set("job-name", "job=with equals")
            .set("checkpoint-dir", "file:///tmp/ckpt").set("kafka-properties", "/etc/tierroute/job kafka.properties").set("publish-interval", Duration.ofNanos(1_500_000))
            .set("max-watermark-drift", Duration.ofHours(3)).set("state-ttl", JobSettings.MAX_DURATION).set("gate-min-r2", 0.1 + 0.2)
            .set("forest-max-bytes", JobSettings.FOREST_MAX_BYTES_LIMIT).set("cadence-clock", JobSettings.EVENT_CLOCK).build();
        assertThat(JobSettings.parse(varied.toArguments().toArray(String[]::new))).isEqualTo(varied);
        assertThat(varied.toArguments()).contains("--publish-interval=PT0.0015S", "--max-watermark-drift=10800000ms");
    }

    @Test
    void isoDurationsParse() {
        assertThat(JobSettings.parseDuration("PT0.25S")).isEqualTo(Duration.ofMillis(250));
        assertThatThrownBy(() -> JobSettings.parse("--idleness", "P-bad"))
            .hasMessageContaining("--idleness: 'P-bad' is not a duration");
    }
}
