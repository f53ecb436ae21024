package io.tierroute.selector.kafka;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.RecordDecodeException;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.snapshot.ModelCarrier;
import io.tierroute.selector.kafka.ParameterLoader.BadReason;
import io.tierroute.selector.kafka.SnapshotRecordReader.Fetched;
import io.tierroute.selector.kafka.SnapshotRecordReader.Where;

import java.util.function.BooleanSupplier;

/**
 * The whole snapshot of a version the activation rule made active, ready to convert: its record from what
 * {@link ServedScopeRecords} keeps (or read back), decoded, checked to be that version of the served scope, and given
 * its output-length model.
 *
 * <p><b>Models by reference.</b> A snapshot may name the record that carries its quantile forest instead of carrying
 * it ({@link ModelCarrier}): the job publishes each forest once. The reader then takes the applied set's model when it
 * is that one, else the newest carrying record the loader holds, else reads that record back by its offset (carriers of
 * the served scope are indexed in any status: the first record to carry a retrained forest may be one the gate
 * rejected), else scans for it. A snapshot whose carrier is gone, or carries no model, is refused like one that cannot
 * be used. Loader thread only.
 */
final class ActiveSnapshotReader {

    /** What reading a version came to. */
    sealed interface Outcome permits Read, Retry, Refused, Stopped {}

    /** The snapshot, with its model. */
    record Read(ParameterSnapshot snapshot) implements Outcome {}

    /** A record it needs could not be read back for a transient reason (a timeout): worth another try. */
    record Retry(String what) implements Outcome {}

    /** The version cannot be used, for {@code reason}: it is given up until it is published again. */
    record Refused(BadReason reason, String message) implements Outcome {}

    /** The loader closed during a read back: nothing more is read, nothing is applied. */
    record Stopped() implements Outcome {}

    private final String scope;
    private final ServedScopeRecords records;
    private final BooleanSupplier running;

    /** @param running false once the loader closes: a read in progress stops after its current record */
    ActiveSnapshotReader(String scope, ServedScopeRecords records, BooleanSupplier running) {
        this.scope = scope;
        this.records = records;
        this.running = running;
    }

    /** Reads active {@code version} of the served scope, with its output-length model. */
    Outcome read(long version) {
        Outcome decoded = fetchAndDecode(version, version, "active version " + version + " of scope '" + scope + "'",
                "version " + version);
        if (!(decoded instanceof Read read)) {
            return decoded;
        }
        ParameterSnapshot s = read.snapshot();
        if (s.getVersion() != version || !s.getScope().toString().equals(scope)) {
            // read back by an offset of a topic that has been replaced since (the reset follows), or a key that lies
            return new Refused(BadReason.UNUSABLE, "the record read for version " + version + " of scope '" + scope
                    + "' is version " + s.getVersion() + " of scope '" + s.getScope() + "'");
        }
        return withModel(s);
    }

    /**
     * Gives {@code s} its output-length model when it names the record carrying it: the applied set's model when it
     * is that one, else that record's.
     */
    private Outcome withModel(ParameterSnapshot s) {
        long version = s.getVersion();
        String problem = ModelCarrier.problem(s);
        if (problem != null) {
            return new Refused(BadReason.UNUSABLE, "version " + version + " of scope '" + scope + "' cannot be used: "
                    + problem);
        }
        if (!ModelCarrier.refersElsewhere(s)) {
            return new Read(s);
        }
        ModelCarriers carriers = records.carriers();
        long carrier = s.getQuantileModelVersion();
        QuantileForestModel applied = carriers.appliedModel(carrier);
        if (applied != null) {
            s.setQuantileModel(applied);
            return new Read(s);
        }
        String what = "version " + carrier + " of scope '" + scope + "' (it carries the output-length model of version "
                + version + ")";
        if (carriers.isMissing(carrier)) { // every snapshot after a lost carrier names it: scan once, not each
            return new Refused(BadReason.MISSING, what + " is no longer on " + Topics.PARAMS);
        }
        Outcome decoded = fetchAndDecode(carrier, version, what, what);
        if (!(decoded instanceof Read read)) {
            return decoded;
        }
        ParameterSnapshot c = read.snapshot();
        if (c.getQuantileModel() == null || !c.getScope().toString().equals(scope) || c.getVersion() != carrier) {
            return new Refused(BadReason.UNUSABLE, what + ": the record found under that key carries no model of that "
                    + "scope and version");
        }
        s.setQuantileModel(c.getQuantileModel());
        return new Read(s);
    }

    /**
     * The record of version {@code fetched}, which activating {@code active} needs, fetched and decoded; or why not:
     * stopped (the loader closed meanwhile), missing ({@code what}), or undecodable ({@code decodeWhat}).
     */
    private Outcome fetchAndDecode(long fetched, long active, String what, String decodeWhat) {
        Fetched f = records.fetch(fetched);
        if (!running.getAsBoolean()) {
            return new Stopped();
        }
        if (f.bytes() == null) {
            return missingRecord(f, active, fetched, what);
        }
        return decode(f.bytes(), decodeWhat);
    }

    /** {@code bytes} ({@code what}) decoded, or why not. */
    private static Outcome decode(byte[] bytes, String what) {
        try {
            return new Read(Codecs.PARAMETER_SNAPSHOT.decode(bytes));
        } catch (RecordDecodeException e) {
            return new Refused(BadReason.of(e), what + ": " + e.getMessage());
        }
    }

    /**
     * The record of version {@code fetched} ({@code what}), which activating {@code active} needs, was not had: a
     * transient failure is retried; otherwise it is gone, and a carrier found gone is not looked for again.
     */
    private Outcome missingRecord(Fetched f, long active, long fetched, String what) {
        if (f.transientFailure()) {
            return new Retry(what);
        }
        if (fetched != active) {
            records.carriers().missing(fetched);
        }
        Where where = records.where(fetched);
        return new Refused(BadReason.MISSING, what + " is no longer on " + Topics.PARAMS
                + (where == null ? "" : " at " + where));
    }
}
