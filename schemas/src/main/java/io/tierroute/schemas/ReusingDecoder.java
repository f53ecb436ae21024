package io.tierroute.schemas;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.SameSchemaDecoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.avro.specific.SpecificRecordBase;

/**
 * A decoder of one record type for a single consumer thread that decodes into the same record object
 * each time ({@link RecordCodec#reusingDecoder()}): for a consumer that copies what it needs out of the
 * record before the next call. Records written with the current schema go through the generated
 * {@code customDecode} (Avro's custom coders: no boxed field values) into the reused object, with a
 * reused {@link BinaryDecoder} read through a {@link SameSchemaDecoder} (no resolving grammar walked per
 * field: writer schema = reader schema); a released older writer schema takes {@link RecordCodec#decode}'s
 * path (a fresh record, Avro's resolution). Same checks and exceptions as {@link RecordCodec#decode} (a
 * message may quote a different Avro exception as its cause).
 *
 * <p>Why it is as safe as the generic path on hostile bytes: the generated {@code customDecode} sizes a
 * new array by the count the bytes claim; here every array of the reused record exists before the first
 * decode ({@link #seed}), so {@code customDecode} only clears and refills it, one decoded element at a
 * time, and a false count ends in an EOF on the in-memory decoder. Types with a map or with an array or
 * record inside a union (whose object could be replaced by a fresh one) are not decoded this way.
 */
public final class ReusingDecoder<T extends SpecificRecord> {
  static {
    AvroTrust.install();
  }

  private final RecordCodec<T> codec;
  private final SpecificDatumReader<T> reader; // null: this type always takes the codec's path
  private final SameSchemaDecoder direct; // null: the current schema's records go through the reader
  private final T record;
  private BinaryDecoder decoder;
  private final RecordCodec.BodyReader<T> directBody = this::decodeDirect;

  ReusingDecoder(RecordCodec<T> codec) {
    this.codec = codec;
    Schema schema = codec.schema();
    if (customDecodeSafe(schema)) {
      SpecificData model = new SpecificData(codec.recordType().getClassLoader());
      model.setCustomCoders(true);
      model.setFastReaderEnabled(false); // Avro's fast reader ignores custom coders
      this.reader = new SpecificDatumReader<>(schema, schema, model);
      @SuppressWarnings("unchecked")
      T r = (T) model.newRecord(null, schema);
      seed(r, model);
      this.record = r;
      this.direct = generatesCustomDecode(r.getClass()) ? directDecoder(schema) : null;
    } else {
      this.reader = null;
      this.direct = null;
      this.record = null;
    }
  }

  /** Whether the class was generated with custom coders (its own {@code customDecode}). */
  private static boolean generatesCustomDecode(Class<?> type) {
    try {
      type.getDeclaredMethod("customDecode", org.apache.avro.io.ResolvingDecoder.class);
      return true;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  /** The grammar-free decoder for the current schema, or null where it cannot check a union index. */
  private static SameSchemaDecoder directDecoder(Schema schema) {
    int unionWidth = SameSchemaDecoder.unionWidth(schema);
    if (unionWidth < 0) {
      return null;
    }
    try {
      return new SameSchemaDecoder(unionWidth);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (IllegalAccessError e) {
      // SameSchemaDecoder sits in Avro's package: a class loader that loads Avro apart from this jar (a cluster
      // with Avro parent-first) makes its constructor call illegal. Avro's resolving reader still works.
      return null;
    }
  }

  /**
   * Decodes {@code bytes} like {@link RecordCodec#decode}. For the current writer schema the result is the
   * same object on every call, overwritten by the next one.
   */
  public T decode(byte[] bytes) {
    long fp = codec.checkHeader(bytes);
    if (reader == null || fp != codec.fingerprint()) {
      return codec.decode(bytes);
    }
    decoder = DecoderFactory.get().binaryDecoder(bytes, RecordCodec.HEADER_LENGTH,
        bytes.length - RecordCodec.HEADER_LENGTH, decoder);
    if (direct == null) {
      return codec.readBody(reader, record, decoder, fp, bytes.length - RecordCodec.HEADER_LENGTH);
    }
    return codec.readBody(directBody, decoder, fp, bytes.length - RecordCodec.HEADER_LENGTH);
  }

  private T decodeDirect(BinaryDecoder in) throws IOException {
    ((SpecificRecordBase) record).customDecode(direct.on(in));
    return record;
  }

  /** Whether records of the current writer schema skip Avro's resolving grammar ({@link SameSchemaDecoder}). */
  boolean decodesDirectly() {
    return direct != null;
  }

  /**
   * Whether this type decodes through custom coders here: custom coders generated, no map, no array or record in a
   * union, no array inside an array's elements.
   */
  static boolean customDecodeSafe(Schema schema) {
    return schema.getType() == Schema.Type.RECORD && safe(schema, false);
  }

  private static boolean safe(Schema s, boolean inUnion) {
    switch (s.getType()) {
      case MAP:
        return false;
      case RECORD:
        if (inUnion) {
          return false;
        }
        for (Schema.Field f : s.getFields()) {
          if (!safe(f.schema(), false)) {
            return false;
          }
        }
        return true;
      case ARRAY:
        // seed() gives the record's own arrays an object, but customDecode creates an element record itself and would
        // size an array inside it by the count the bytes claim: elements must hold none.
        return !inUnion && safe(s.getElementType(), false) && !holdsArray(s.getElementType());
      case UNION:
        for (Schema b : s.getTypes()) {
          if (!safe(b, true)) {
            return false;
          }
        }
        return true;
      default:
        return true;
    }
  }

  /** Whether {@code s} is, or has a field (at any depth) that is, an array or a map. */
  private static boolean holdsArray(Schema s) {
    switch (s.getType()) {
      case ARRAY:
      case MAP:
        return true;
      case RECORD:
        for (Schema.Field f : s.getFields()) {
          if (holdsArray(f.schema())) {
            return true;
          }
        }
        return false;
      case UNION:
        for (Schema b : s.getTypes()) {
          if (holdsArray(b)) {
            return true;
          }
        }
        return false;
      default:
        return false;
    }
  }

  /** Gives every nested record and array of {@code r} an object, so customDecode never sizes one by a decoded count. */
  private static void seed(Object r, SpecificData model) {
    // (A class generated without custom coders takes Avro's generic path in the same reader: still correct.)
    if (!(r instanceof SpecificRecordBase base)) {
      throw new IllegalStateException("not a generated record: " + r.getClass().getName());
    }
    List<Schema.Field> fields = base.getSchema().getFields();
    for (Schema.Field f : fields) {
      Schema s = f.schema();
      if (s.getType() == Schema.Type.RECORD) {
        Object nested = model.newRecord(null, s);
        seed(nested, model);
        base.put(f.pos(), nested);
      } else if (s.getType() == Schema.Type.ARRAY) {
        base.put(f.pos(), new SpecificData.Array<>(0, s));
      }
    }
  }
}
