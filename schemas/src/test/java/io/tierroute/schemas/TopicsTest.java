package io.tierroute.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TopicsTest {
  @Test
  void namesAndCompaction() {
    assertThat(Topics.ALL).containsExactly("tierroute.kv-events", "tierroute.telemetry",
        "tierroute.completions", "tierroute.decisions", "tierroute.params", "tierroute.control",
        "tierroute.dead-letter", "tierroute.replica-sync");
    assertThat(Topics.COMPACTED).containsExactlyInAnyOrder(Topics.PARAMS, Topics.CONTROL);
    assertThat(Topics.isCompacted(Topics.CONTROL)).isTrue();
    assertThat(Topics.isCompacted(Topics.KV_EVENTS)).isFalse();
  }

  @Test
  void specsCoverEveryTopicAndCompactExactlyTheCompactedOnes() {
    assertThat(Topics.specs()).extracting(Topics.Spec::name).containsExactlyElementsOf(Topics.ALL);
    for (Topics.Spec spec : Topics.specs()) {
      assertThat(spec.partitions()).isPositive();
      assertThat("compact".equals(spec.configs().get("cleanup.policy")))
          .as(spec.name()).isEqualTo(Topics.isCompacted(spec.name()));
      if (Topics.isCompacted(spec.name())) {
        // compaction only: no version of the history may expire by age
        assertThat(spec.configs()).as(spec.name()).doesNotContainKey("retention.ms");
      } else {
        // an explicit retention, so the broker's default cannot shorten it
        assertThat(spec.configs()).as(spec.name()).containsEntry("cleanup.policy", "delete");
        assertThat(Long.parseLong(spec.configs().get("retention.ms"))).as(spec.name())
            .isGreaterThanOrEqualTo(spec.name().equals(Topics.REPLICA_SYNC) ? java.time.Duration.ofHours(1).toMillis()
                : java.time.Duration.ofDays(1).toMillis());
      }
    }
    assertThat(Topics.specs().stream().filter(s -> s.name().equals(Topics.TELEMETRY)).findFirst().orElseThrow()
        .configs()).containsEntry("retention.ms", Long.toString(Topics.INPUT_RETENTION.toMillis()));
    // Retention deletes whole segments: the replica-sync topic's roll well within its hour.
    assertThat(Topics.specs().stream().filter(s -> s.name().equals(Topics.REPLICA_SYNC)).findFirst().orElseThrow()
        .configs()).containsEntry("segment.ms", "600000");
  }

  @Test
  void controlKeysAreOnePerWriteSoCompactionKeepsEveryWrite() {
    assertThat(Topics.controlKey("default", 3)).isEqualTo("default#0000000000000000003");
    assertThat(Topics.controlKey("default", 3)).isNotEqualTo(Topics.controlKey("default", 4));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Topics.controlKey("a", 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aParamsKeyParsesBackToItsScopeAndVersionAndAnythingElseToNull() {
    byte[] key = Topics.paramsKey("pool#a", 42).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(Topics.ParamsKey.parse(key)).isEqualTo(new Topics.ParamsKey("pool#a", 42));
    for (String bad : new String[] {"default", "default#x", "default#0", "default#-3", ""}) {
      assertThat(Topics.ParamsKey.parse(bad.getBytes(java.nio.charset.StandardCharsets.UTF_8))).as(bad).isNull();
    }
    assertThat(Topics.ParamsKey.parse(null)).isNull();
  }

  @Test
  void paramsKeysSortByVersionWithinAScope() {
    assertThat(Topics.paramsKey("default", 42)).isEqualTo("default#0000000000000000042");
    assertThat(Topics.paramsKey("a", 9).compareTo(Topics.paramsKey("a", 10))).isNegative();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Topics.paramsKey("a", -1))
        .hasMessageContaining(">= 0");
  }
}
