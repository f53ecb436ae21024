package io.tierroute.selector.kafka;

import io.tierroute.schemas.avro.RoutingDecision;
import io.tierroute.selector.scheduling.DistinctBreakdown;
import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.scheduling.RouteRequest;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A decision waiting in the publisher's buffer (all of it, for as long as the broker is unreachable) holds neither the
 * prompt nor the explained candidates, and still carries every request field the record needs.
 */
class DecisionHandOffTest {

    private static final int PROMPT_TOKENS = 8_000;

    @Test
    void aBufferedDecisionKeepsNoPromptAndNoCandidates() {
        RouteRequest request = new RouteRequest("req-9", "model-y", "lora-a", "ns", new int[PROMPT_TOKENS], null,
                null, null, 128, 40,
                new RouteRequest.AgentContext("wf-3", "7", List.of("search", "browse")), true);
        RouteDecision explained = new RouteDecision("req-9", "w-1", 1, "default", 4, PROMPT_TOKENS, 40,
                RouteDecision.PredictionSource.HINT, null, false, false, 0, DistinctBreakdown.of(10),
                List.of(new RouteDecision.Candidate("w-0", null, DistinctBreakdown.of(20)),
                        new RouteDecision.Candidate("w-1", null, DistinctBreakdown.of(10))));

        DecisionPublisher.Pending p = DecisionPublisher.Pending.of(request, explained, 2, 5L, 2_500L, 48L,
                1_700_000_000_000L);

        assertThat(p.decision().candidates()).as("explained candidates are not published").isEmpty();
        assertThat(p.decision().chosen()).isSameAs(explained.chosen());
        assertThat(componentTypes(DecisionPublisher.Pending.class)).doesNotContain(RouteRequest.class);
        assertThat(componentTypes(DecisionRecords.RequestFields.class))
            .as("a few scalar fields, no token array or text")
            .allMatch(t -> t == String.class || t == Integer.class || t == int.class);

        RoutingDecision r = DecisionRecords.build("sel-1", "model-x", p.request(), p.decision(), p.candidates(),
                p.prefixGroupId(), p.idleMs(), p.lastWorkerHeldTokens(), p.timestampMs());
        assertThat(r.getRequest().getModel()).isEqualTo("model-y");
        assertThat(r.getRequest().getLora()).isEqualTo("lora-a");
        assertThat(r.getRequest().getWorkflowId()).isEqualTo("wf-3");
        assertThat(r.getRequest().getStepIndex()).isEqualTo(7);
        assertThat(r.getRequest().getExpectedTool()).isEqualTo("search");
        assertThat(r.getRequest().getMaxTokens()).isEqualTo(128);
        assertThat(r.getRequest().getOutputHint()).isEqualTo(40);
        assertThat(r.getRequest().getIsl()).isEqualTo(PROMPT_TOKENS);
        assertThat(r.getFeatures().getIdleSinceLastStepMs()).isEqualTo(2_500L);
        assertThat(r.getFeatures().getLastWorkerHeldTokens()).isEqualTo(48L);
        assertThat(r.getCandidateCount()).isEqualTo(2);
    }

    @Test
    void aDecisionWithoutCandidatesIsHandedOverAsItIs() {
        RouteDecision plain = new RouteDecision("req-1", "w-0", 0, "default", 1, 16, 8,
                RouteDecision.PredictionSource.MAX_TOKENS_HALF, null, false, false, 0, DistinctBreakdown.of(1),
                List.of());
        assertThat(plain.withoutCandidates()).isSameAs(plain);
    }

    private static List<Class<?>> componentTypes(Class<? extends Record> type) {
        return Arrays.stream(type.getRecordComponents()).<Class<?>>map(RecordComponent::getType).toList();
    }
}
