package io.tierroute.jobs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.ReleasedSchemas;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.junit.jupiter.api.Test;

/** Which writer schemas of RoutingDecision lack a set of decision fields, matched as Avro's resolution matches. */
class DefaultedDecisionFieldsTest {
    static final String[][] ADMISSION_WAIT = DefaultedDecisionFields.ADMISSION_WAIT;
    static final Schema CURRENT = Codecs.ROUTING_DECISION.schema();
    static final Schema V1 = ReleasedSchemas.load("RoutingDecision").get(0);

    @Test
    void theReleasedV1LacksThemAndTheCurrentSchemaCarriesThem() {
        for (String[][] paths : List.of(ADMISSION_WAIT, DefaultedDecisionFields.QUEUED_PREFILL)) {
            DefaultedDecisionFields fields = DefaultedDecisionFields.of(Codecs.ROUTING_DECISION, paths);
            assertThat(fields.lackedBy(fp(V1))).isTrue();
            assertThat(fields.lackedBy(Codecs.ROUTING_DECISION.fingerprint())).isFalse();
            List<Schema> released = ReleasedSchemas.load("RoutingDecision");
            for (Schema later : released.subList(1, released.size())) {
                assertThat(fields.lackedBy(fp(later))).as("v2 on").isFalse();
            }
        }
    }

    @Test
    void aWriterWithoutAnyOneOfThemLacksThem() {
        // queueUs is not CostBreakdown's first field, so a comma precedes it
        Schema noQueueUs = parse(CURRENT.toString().replaceFirst(",\\{\"name\":\"queueUs\",[^{}]*\\}", ""));
        assertThat(noQueueUs.getField("cost").schema().getField("queueUs")).isNull();
        assertThat(DefaultedDecisionFields.carries(CURRENT, noQueueUs, ADMISSION_WAIT)).isFalse();
        assertThat(DefaultedDecisionFields.of(CURRENT, List.of(noQueueUs, CURRENT), ADMISSION_WAIT).lackedBy(fp(noQueueUs)))
            .isTrue();
        assertThat(DefaultedDecisionFields.carries(CURRENT, noQueueUs, DefaultedDecisionFields.QUEUED_PREFILL))
            .as("another set's field").isTrue();
    }

    @Test
    void aWriterFieldUnderAnAliasOfTheReadersCounts() {
        // an older writer that named the field kvUsed: the reader finds it only through an alias, as Avro does
        Schema olderName = parse(CURRENT.toString().replace("{\"name\":\"kvUsedTokens\",", "{\"name\":\"kvUsed\","));
        Schema aliased = parse(CURRENT.toString()
            .replace("{\"name\":\"kvUsedTokens\",", "{\"name\":\"kvUsedTokens\",\"aliases\":[\"kvUsed\"],"));
        assertThat(DefaultedDecisionFields.carries(CURRENT, olderName, ADMISSION_WAIT)).as("no alias: another field")
            .isFalse();
        assertThat(DefaultedDecisionFields.carries(aliased, olderName, ADMISSION_WAIT)).isTrue();
        assertThat(DefaultedDecisionFields.carries(aliased, V1, ADMISSION_WAIT)).isFalse();
    }

    private static long fp(Schema s) {
        return SchemaNormalization.parsingFingerprint64(s);
    }

    private static Schema parse(String json) {
        return new Schema.Parser().parse(json);
    }
}
