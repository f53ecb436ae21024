package io.tierroute.jobs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.ReleasedSchemas;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.junit.jupiter.api.Test;

/** Which writer schemas of RoutingDecision lack the admission wait's inputs, matched as Avro's resolution matches. */
class AdmissionWaitFieldsTest {
    static final Schema CURRENT = Codecs.ROUTING_DECISION.schema();
    static final Schema V1 = ReleasedSchemas.load("RoutingDecision").get(0);

    @Test
    void theReleasedV1LacksThemAndTheCurrentSchemaCarriesThem() {
        AdmissionWaitFields fields = AdmissionWaitFields.of(Codecs.ROUTING_DECISION);
        assertThat(fields.lackedBy(fp(V1))).isTrue();
        assertThat(fields.lackedBy(Codecs.ROUTING_DECISION.fingerprint())).isFalse();
        List<Schema> released = ReleasedSchemas.load("RoutingDecision");
        for (Schema later : released.subList(1, released.size())) {
            assertThat(fields.lackedBy(fp(later))).as("v2 on").isFalse();
        }
    }

    @Test
    void aWriterWithoutAnyOneOfThemLacksThem() {
        // queueUs is not CostBreakdown's first field, so a comma precedes it
        Schema noQueueUs = parse(CURRENT.toString().replaceFirst(",\\{\"name\":\"queueUs\",[^{}]*\\}", ""));
        assertThat(noQueueUs.getField("cost").schema().getField("queueUs")).isNull();
        assertThat(AdmissionWaitFields.carries(CURRENT, noQueueUs)).isFalse();
        assertThat(AdmissionWaitFields.of(CURRENT, List.of(noQueueUs, CURRENT)).lackedBy(fp(noQueueUs))).isTrue();
    }

    @Test
    void aWriterFieldUnderAnAliasOfTheReadersCounts() {
        // an older writer that named the field kvUsed: the reader finds it only through an alias, as Avro does
        Schema olderName = parse(CURRENT.toString().replace("{\"name\":\"kvUsedTokens\",", "{\"name\":\"kvUsed\","));
        Schema aliased = parse(CURRENT.toString()
            .replace("{\"name\":\"kvUsedTokens\",", "{\"name\":\"kvUsedTokens\",\"aliases\":[\"kvUsed\"],"));
        assertThat(AdmissionWaitFields.carries(CURRENT, olderName)).as("no alias: another field").isFalse();
        assertThat(AdmissionWaitFields.carries(aliased, olderName)).isTrue();
        assertThat(AdmissionWaitFields.carries(aliased, V1)).isFalse();
    }

    private static long fp(Schema s) {
        return SchemaNormalization.parsingFingerprint64(s);
    }

    private static Schema parse(String json) {
        return new Schema.Parser().parse(json);
    }
}
