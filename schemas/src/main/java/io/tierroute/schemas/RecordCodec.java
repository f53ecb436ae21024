package io.tierroute.schemas;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.message.SchemaStore;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;

/**
 * Avro single-object encoding of one generated record type: {@code 0xC3 0x01}, the writer
 * schema's 8-byte little-endian CRC-64-AVRO fingerprint, then the Avro binary body. No schema
 * registry: the fingerprint is looked up in a {@link SchemaStore} holding the current schema and
 * every released version of this record type ({@link ReleasedSchemas}), and the body is resolved
 * from that writer schema to the current class.
 *
 * <p>Encoding uses Avro's {@link BinaryMessageEncoder}, so the bytes are exactly what Avro's
 * {@code BinaryMessageDecoder} reads. Decoding does the same steps as {@code BinaryMessageDecoder}
 * but over an in-memory {@link BinaryDecoder} rather than its {@code DirectBinaryDecoder} on a
 * stream, because (Avro 1.12.2) the stream path cannot see how many bytes remain: a corrupted
 * length then allocates up to 2 GiB instead of failing, and trailing bytes go unnoticed. Here
 * Avro's remaining-bytes checks apply, and every failure becomes a {@link RecordDecodeException}.
 *
 * <p>Instances are immutable and thread-safe; share them ({@link Codecs}).
 */
public final class RecordCodec<T extends SpecificRecord> {
  static {
    AvroTrust.install();
  }

  /** Length of the single-object header: 2 magic bytes + 8 fingerprint bytes. */
  public static final int HEADER_LENGTH = 10;

  private static final byte MAGIC_0 = (byte) 0xC3;
  private static final byte MAGIC_1 = (byte) 0x01;

  private final Class<T> type;
  private final String name;
  private final Schema schema;
  private final long fingerprint;
  private final BinaryMessageEncoder<T> encoder;
  private final Map<Long, Schema> writerSchemas;
  private final Map<Long, String> labels;
  private final Map<Long, SpecificDatumReader<T>> readers;
  private final SchemaStore schemaStore;

  private RecordCodec(Class<T> type, List<Schema> released) {
    this.type = Objects.requireNonNull(type, "type");
    this.name = type.getSimpleName();
    this.schema = ReleasedSchemas.currentSchema(type);
    this.fingerprint = SchemaNormalization.parsingFingerprint64(schema);

    SpecificData model = new SpecificData(type.getClassLoader());
    // The generated customDecode() allocates arrays of the encoded size without checking it
    // against the remaining bytes; the generic path checks. This is also Avro's default.
    model.setCustomCoders(false);
    this.encoder = new BinaryMessageEncoder<>(model, schema);

    Map<Long, Schema> writers = new LinkedHashMap<>();
    Map<Long, String> names = new LinkedHashMap<>();
    for (int i = 0; i < released.size(); i++) {
      Schema writer = released.get(i);
      if (!writer.getFullName().equals(schema.getFullName())) {
        throw new IllegalStateException("Released schema v" + (i + 1) + " of " + name
            + " is a " + writer.getFullName() + ", not a " + schema.getFullName());
      }
      SchemaCompatibility.SchemaPairCompatibility compat =
          SchemaCompatibility.checkReaderWriterCompatibility(schema, writer);
      if (compat.getType() != SchemaCompatibilityType.COMPATIBLE) {
        throw new IllegalStateException("The current " + name + " schema cannot read released v"
            + (i + 1) + ": " + compat.getDescription());
      }
      long fp = SchemaNormalization.parsingFingerprint64(writer);
      writers.putIfAbsent(fp, writer);
      names.merge(fp, "v" + (i + 1), (a, b) -> a + "=" + b);
    }
    writers.putIfAbsent(fingerprint, schema);
    names.merge(fingerprint, "current", (a, b) -> a + "=" + b);
    this.writerSchemas = Collections.unmodifiableMap(writers);
    this.labels = Collections.unmodifiableMap(names);

    Map<Long, SpecificDatumReader<T>> rs = new LinkedHashMap<>();
    writers.forEach((fp, writer) -> rs.put(fp, new SpecificDatumReader<>(writer, schema, model)));
    this.readers = Collections.unmodifiableMap(rs);
    this.schemaStore = writerSchemas::get;
  }

  /** A codec for {@code type} that reads the current schema and all released versions. */
  public static <T extends SpecificRecord> RecordCodec<T> of(Class<T> type) {
    return new RecordCodec<>(type, ReleasedSchemas.load(type.getSimpleName(), type.getClassLoader()));
  }

  /**
   * A codec for {@code type} that reads the current schema and the given writer schemas (instead
   * of the released ones on the classpath). Throws {@link IllegalStateException} if the current
   * schema cannot read one of them.
   */
  public static <T extends SpecificRecord> RecordCodec<T> of(Class<T> type, List<Schema> writerSchemas) {
    return new RecordCodec<>(type, List.copyOf(writerSchemas));
  }

  /** Single-object encoding of {@code record} with the current schema. */
  public byte[] encode(T record) {
    Objects.requireNonNull(record, "record");
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try {
      encoder.encode(record, out);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot encode " + name, e);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Cannot encode " + name + ": " + e.getMessage(), e);
    }
    return out.toByteArray();
  }

  /**
   * Decodes a single-object encoded record written with the current schema or any released
   * version of it.
   *
   * @throws UnknownSchemaException if the header is valid but names an unknown writer schema
   * @throws CorruptRecordException if the bytes are not a well-formed record
   */
  public T decode(byte[] bytes) {
    long fp = checkHeader(bytes);
    SpecificDatumReader<T> reader = readers.get(fp);
    if (reader == null) {
      throw new UnknownSchemaException(name, fp, knownFingerprintsText());
    }
    int bodyLength = bytes.length - HEADER_LENGTH;
    BinaryDecoder in = DecoderFactory.get().binaryDecoder(bytes, HEADER_LENGTH, bodyLength, null);
    return readBody(reader, null, in, fp, bodyLength);
  }

  /**
   * A decoder into one reused record, for a single thread that copies what it needs before the next
   * call (no boxed values, fewer objects per record); see {@link ReusingDecoder}.
   */
  public ReusingDecoder<T> reusingDecoder() {
    return new ReusingDecoder<>(this);
  }

  /** The writer fingerprint of a well-formed single-object header; {@link CorruptRecordException} otherwise. */
  long checkHeader(byte[] bytes) {
    if (bytes == null) {
      throw new CorruptRecordException(name, "input is null", null);
    }
    if (bytes.length < HEADER_LENGTH) {
      throw new CorruptRecordException(name, "truncated header: " + bytes.length
          + " bytes, a single-object header has " + HEADER_LENGTH
          + " (0xC3 0x01 and an 8-byte schema fingerprint)", null);
    }
    if (bytes[0] != MAGIC_0 || bytes[1] != MAGIC_1) {
      throw new CorruptRecordException(name, String.format(
          "bad magic 0x%02X 0x%02X, expected 0xC3 0x01 (Avro single-object encoding)",
          bytes[0] & 0xFF, bytes[1] & 0xFF), null);
    }
    return readFingerprint(bytes);
  }

  /** Reads the body from {@code in} (into {@code reuse} if not null) and checks that nothing trails it. */
  T readBody(SpecificDatumReader<T> reader, T reuse, BinaryDecoder in, long fp, int bodyLength) {
    return readBody(body -> reader.read(reuse, body), in, fp, bodyLength);
  }

  /** How a body is read from its decoder (Avro's reader, or {@link ReusingDecoder}'s direct path). */
  interface BodyReader<T> {
    T read(BinaryDecoder in) throws IOException;
  }

  /** Reads the body with {@code body} and checks that nothing trails it. */
  T readBody(BodyReader<T> body, BinaryDecoder in, long fp, int bodyLength) {
    T result;
    try {
      result = body.read(in);
    } catch (SecurityException e) {
      throw e; // a set-up error (class trust), not bad data
    } catch (IOException | RuntimeException e) {
      String what = isEof(e) ? "truncated body" : "malformed body";
      throw new CorruptRecordException(name, what + " (" + bodyLength + " body bytes, writer schema "
          + labels.get(fp) + " " + toHex(fp) + "): " + e, e);
    }
    try {
      if (!in.isEnd()) {
        int extra = in.remainingBytes();
        throw new CorruptRecordException(name, (extra >= 0 ? extra + " " : "") + "trailing bytes after a complete record ("
            + bodyLength + " body bytes, writer schema " + labels.get(fp) + " " + toHex(fp) + ")", null);
      }
    } catch (IOException e) {
      throw new CorruptRecordException(name, "cannot check for trailing bytes: " + e, e);
    }
    return result;
  }

  private static boolean isEof(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof EOFException) {
        return true;
      }
    }
    return false;
  }

  /** The record class this codec produces. */
  public Class<T> recordType() {
    return type;
  }

  /** Simple name of the record type, e.g. {@code KvEventBatch}. */
  public String recordName() {
    return name;
  }

  /** The current (compiled-in) schema, used for writing and as the reader schema. */
  public Schema schema() {
    return schema;
  }

  /** CRC-64-AVRO fingerprint of {@link #schema()}, the one {@link #encode} writes. */
  public long fingerprint() {
    return fingerprint;
  }

  /** Every writer schema this codec decodes, by fingerprint (released versions first). */
  public Map<Long, Schema> writerSchemas() {
    return writerSchemas;
  }

  /**
   * The writer schemas as an Avro {@link SchemaStore}, for comparing with Avro's own decoding in tests. Never give it to
   * a {@code BinaryMessageDecoder} that reads untrusted bytes: that decoder allocates whatever a length claims (an
   * OutOfMemoryError from 15 bytes) and accepts trailing bytes; {@link #decode} does neither (README).
   */
  public SchemaStore schemaStore() {
    return schemaStore;
  }

  /** "hex (labels)" of every known writer fingerprint. */
  private String knownFingerprintsText() {
    List<String> parts = new ArrayList<>();
    labels.forEach((fp, label) -> parts.add(toHex(fp) + " (" + label + ")"));
    return String.join(", ", parts);
  }

  /** A fingerprint as 16 lower-case hex digits. */
  public static String toHex(long fingerprint) {
    return String.format("%016x", fingerprint);
  }

  /**
   * The writer fingerprint in a single-object header, or empty if {@code bytes} does not start
   * with a well-formed header. Useful to route or count records without decoding them.
   */
  public static OptionalLong peekFingerprint(byte[] bytes) {
    if (bytes == null || bytes.length < HEADER_LENGTH || bytes[0] != MAGIC_0 || bytes[1] != MAGIC_1) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(readFingerprint(bytes));
  }

  private static long readFingerprint(byte[] bytes) {
    long fp = 0;
    for (int i = 9; i >= 2; i--) {
      fp = (fp << 8) | (bytes[i] & 0xFFL);
    }
    return fp;
  }

  @Override
  public String toString() {
    return "RecordCodec[" + name + ", current " + toHex(fingerprint) + ", reads " + knownFingerprintsText() + "]";
  }
}
