package io.tierroute.jobs.ingest;

import io.tierroute.schemas.RecordCodec;
import io.tierroute.schemas.avro.RoutingDecision;
import java.util.Collection;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * Which writer schemas of {@code RoutingDecision} lack the admission wait's decision inputs: {@code
 * features.kvUsedTokens}, {@code features.inFlight} and {@code cost.queueUs} (RoutingDecision v1). Avro's
 * resolution reads a missing field as its default, 0, which looks like a worker with its KV free and nothing
 * queued, i.e. a control of k's fit; the single-object header names the writer schema, so the decoder can tell
 * such a 0 from a measured one. A field counts as present when the writer has it under the reader's name or one
 * of its aliases, as Avro's resolution matches fields.
 */
final class AdmissionWaitFields {
    /** The inputs, as (field of RoutingDecision, field of that record). */
    private static final String[][] PATHS = {{"features", "kvUsedTokens"}, {"features", "inFlight"}, {"cost", "queueUs"}};

    private final long[] lacking; // fingerprints of the writer schemas without one of them; few, so a scan

    private AdmissionWaitFields(long[] lacking) {
        this.lacking = lacking;
    }

    /** For the writer schemas a codec of {@code RoutingDecision} decodes. */
    static AdmissionWaitFields of(RecordCodec<RoutingDecision> codec) {
        return of(codec.schema(), codec.writerSchemas().values());
    }

    /** For records written with {@code writers} and read with {@code reader}. */
    static AdmissionWaitFields of(Schema reader, Collection<Schema> writers) {
        return new AdmissionWaitFields(writers.stream().filter(w -> !carries(reader, w))
            .mapToLong(SchemaNormalization::parsingFingerprint64).distinct().toArray());
    }

    /** Whether a record of the writer with this fingerprint read the admission wait's inputs as defaults. */
    boolean lackedBy(long writerFingerprint) {
        for (long fp : lacking) {
            if (fp == writerFingerprint) {
                return true;
            }
        }
        return false;
    }

    /** Whether records of {@code writer} read with {@code reader} carry all the admission wait's inputs. */
    static boolean carries(Schema reader, Schema writer) {
        for (String[] path : PATHS) {
            Schema.Field outer = reader.getField(path[0]);
            Schema.Field writerOuter = matching(writer, outer);
            if (writerOuter == null || matching(writerOuter.schema(), outer.schema().getField(path[1])) == null) {
                return false;
            }
        }
        return true;
    }

    /** The writer's field that Avro resolves {@code readerField} to, or null. */
    private static Schema.Field matching(Schema writerRecord, Schema.Field readerField) {
        if (writerRecord.getType() != Schema.Type.RECORD) {
            return null;
        }
        Schema.Field f = writerRecord.getField(readerField.name());
        for (var alias = readerField.aliases().iterator(); f == null && alias.hasNext(); ) {
            f = writerRecord.getField(alias.next());
        }
        return f;
    }
}
