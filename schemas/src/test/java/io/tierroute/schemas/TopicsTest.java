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
}
