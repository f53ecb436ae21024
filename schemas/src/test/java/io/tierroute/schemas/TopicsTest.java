package io.tierroute.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TopicsTest {
  @Test
  void namesAndCompaction() {
    assertThat(Topics.ALL).containsExactly("tierroute.kv-events", "tierroute.telemetry",
        "tierroute.completions", "tierroute.decisions", "tierroute.params", "tierroute.control",
        "tierroute.dead-letter");
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
    }
  }

  @Test
  void paramsKeysSortByVersionWithinAScope() {
    assertThat(Topics.paramsKey("default", 42)).isEqualTo("default#0000000000000000042");
    assertThat(Topics.paramsKey("a", 9).compareTo(Topics.paramsKey("a", 10))).isNegative();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Topics.paramsKey("a", -1))
        .hasMessageContaining(">= 0");
  }
}
