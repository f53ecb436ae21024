package io.tierroute.selector.kafka;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.CorruptRecordException;
import io.tierroute.schemas.RecordCodec;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotStatus;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Reads only what {@link io.tierroute.schemas.snapshot.ActivationRule} needs from an encoded
 * {@link ParameterSnapshot} (scope, version, status, controlSequence), and which record carries its model: Avro schema resolution against a
 * projection of the record skips the parameters, ρ arrays and the forest without materialising them,
 * so catching up with a topic of a thousand versions with forests does not build a thousand forests.
 * A header that is bad or names an unknown writer schema fails exactly as {@link RecordCodec#decode}
 * does (it is delegated to it). Not thread-safe (one reader thread; readers are cached per writer).
 */
final class SnapshotProjection {

    /**
     * The identifying fields of one snapshot; {@code modelVersion} is the record that carries its output-length model
     * ({@code quantileModelVersion}: null without a model, and in records written before the field existed).
     */
    record Head(String scope, long version, SnapshotStatus status, long controlSequence, Long modelVersion) {
        /** Whether this record carries its model in full (one a later record may name); unknown for older writers. */
        boolean carriesModel() {
            return modelVersion != null && modelVersion == version;
        }
    }

    private static final RecordCodec<ParameterSnapshot> CODEC = Codecs.PARAMETER_SNAPSHOT;
    private static final Schema PROJECTION = projection(CODEC.schema());

    private final Map<Long, GenericDatumReader<GenericRecord>> readers = new HashMap<>();
    private BinaryDecoder decoder;

    private static Schema projection(Schema full) {
        List<Schema.Field> fields = new ArrayList<>();
        for (String name : List.of("scope", "version", "status", "controlSequence", "quantileModelVersion")) {
            Schema.Field f = full.getField(name);
            fields.add(new Schema.Field(f.name(), f.schema(), f.doc(), f.defaultVal()));
        }
        return Schema.createRecord(full.getName(), full.getDoc(), full.getNamespace(), false, fields);
    }

    /**
     * @throws io.tierroute.schemas.UnknownSchemaException for an unknown writer schema
     * @throws CorruptRecordException for bytes that are not a well-formed snapshot
     */
    Head read(byte[] bytes) {
        OptionalLong fp = RecordCodec.peekFingerprint(bytes);
        Schema writer = fp.isPresent() ? CODEC.writerSchemas().get(fp.getAsLong()) : null;
        if (writer == null) {
            CODEC.decode(bytes); // throws the codec's own, precise error
            throw new CorruptRecordException(CODEC.recordName(), "unreadable header", null); // not reached
        }
        GenericDatumReader<GenericRecord> reader = readers.computeIfAbsent(fp.getAsLong(),
                k -> new GenericDatumReader<>(writer, PROJECTION, GenericData.get()));
        int bodyLength = bytes.length - RecordCodec.HEADER_LENGTH;
        decoder = DecoderFactory.get().binaryDecoder(bytes, RecordCodec.HEADER_LENGTH, bodyLength, decoder);
        GenericRecord r;
        try {
            r = reader.read(null, decoder);
            if (!decoder.isEnd()) {
                throw new CorruptRecordException(CODEC.recordName(), "trailing bytes after a complete record", null);
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof CorruptRecordException c) {
                throw c;
            }
            throw new CorruptRecordException(CODEC.recordName(), "malformed body (" + bodyLength + " body bytes): " + e, e);
        }
        Object status = r.get("status");
        return new Head(String.valueOf(r.get("scope")), (Long) r.get("version"),
                SnapshotStatus.valueOf(status.toString()), (Long) r.get("controlSequence"),
                (Long) r.get("quantileModelVersion"));
    }
}
