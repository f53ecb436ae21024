package io.tierroute.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;

/**
 * Every operator of the job has a fixed uid: state in a savepoint is matched to operators by uid, so a
 * generated one (which changes with the graph) would orphan that state after an upgrade.
 */
class OperatorUidsTest {
    @Test
    void everyOperatorHasAFixedUid() {
        JobSettings s = JobSettings.builder().set("bootstrap-servers", "unused:9092").build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(KafkaWiring.configuration(s));
        new FittingJob(KafkaWiring.sources(s), KafkaWiring.paramsSink(s), KafkaWiring.deadLetterSink(s), s).build(env);
        List<String> uids = new ArrayList<>();
        for (StreamNode n : env.getStreamGraph().getStreamNodes()) {
            assertThat(n.getTransformationUID()).as("uid of operator '%s'", n.getOperatorName()).isNotBlank();
            uids.add(n.getTransformationUID());
        }
        assertThat(uids).as("uids").doesNotHaveDuplicates()
            .contains("source-telemetry", "source-decisions", "source-completions", "source-control", "join-by-shard", "fit");
    }
}
