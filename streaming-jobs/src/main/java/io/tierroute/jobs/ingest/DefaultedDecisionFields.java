package io.tierroute.jobs.ingest;

import io.tierroute.schemas.RecordCodec;
import io.tierroute.schemas.avro.RoutingDecision;
import java.util.Collection;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * Which writer schemas of {@code RoutingDecision} lack a set of decision fields, so that Avro's resolution read them
 * as their defaults (0) rather than as measurements. Two sets matter to the fit, both missing from RoutingDecision v1:
 * <ul>
 *   <li>{@link #ADMISSION_WAIT}: {@code features.kvUsedTokens}, {@code features.inFlight} and {@code cost.queueUs}.
 *       Their 0s look like a worker with its KV free and nothing queued, i.e. a control of k's fit.
 *   <li>{@link #QUEUED_PREFILL}: {@code features.queuedPrefillTokens}, part of the α_p-priced column. Its 0 would
 *       load the queue wait the request did see onto the regression's other terms.
 * </ul>
 * The single-object header names the writer schema, so the decoder can tell such a 0 from a measured one. A field
 * counts as present when the writer has it under the reader's name or one of its aliases, as Avro's resolution
 * matches fields.
 */
final class DefaultedDecisionFields {
    /** The admission wait's inputs, as (field of RoutingDecision, field of that record). */
    static final String[][] ADMISSION_WAIT = {{"features", "kvUsedTokens"}, {"features", "inFlight"}, {"cost", "queueUs"}};
    /** C_queue's regressor. */
    static final String[][] QUEUED_PREFILL = {{"features", "queuedPrefillTokens"}};
    /**
     * λ's observation (RoutingDecision v5): its null means "not observed" from a writer that has it, "not said" from
     * one that does not.
     */
    static final String[][] LAST_WORKER_HELD = {{"features", "lastWorkerHeldTokens"}};

    private final long[] lacking; // fingerprints of the writer schemas without one of them; few, so a scan

    private DefaultedDecisionFields(long[] lacking) {
        this.lacking = lacking;
    }

    /** For the writer schemas a codec of {@code RoutingDecision} decodes. */
    static DefaultedDecisionFields of(RecordCodec<RoutingDecision> codec, String[][] paths) {
        return of(codec.schema(), codec.writerSchemas().values(), paths);
    }

    /** For records written with {@code writers} and read with {@code reader}. */
    static DefaultedDecisionFields of(Schema reader, Collection<Schema> writers, String[][] paths) {
        return new DefaultedDecisionFields(writers.stream().filter(w -> !carries(reader, w, paths))
            .mapToLong(SchemaNormalization::parsingFingerprint64).distinct().toArray());
    }

    /** Whether a record of the writer with this fingerprint read one of the fields as its default. */
    boolean lackedBy(long writerFingerprint) {
        for (long fp : lacking) {
            if (fp == writerFingerprint) {
                return true;
            }
        }
        return false;
    }

    /** Whether records of {@code writer} read with {@code reader} carry all the fields of {@code paths}. */
    static boolean carries(Schema reader, Schema writer, String[][] paths) {
        for (String[] path : paths) {
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
