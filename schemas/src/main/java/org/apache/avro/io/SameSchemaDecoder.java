package org.apache.avro.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.avro.AvroTypeException;
import org.apache.avro.Schema;
import org.apache.avro.io.parsing.Symbol;
import org.apache.avro.util.Utf8;

/**
 * A {@link ResolvingDecoder} for bytes written with exactly the reader's schema (same parsing fingerprint,
 * hence the same binary layout), for the generated {@code customDecode(ResolvingDecoder)}: every read goes
 * straight to the underlying {@link BinaryDecoder}, without advancing the resolving grammar per field (the
 * grammar would only confirm what the identical layout already says). Used by
 * {@code io.tierroute.schemas.ReusingDecoder} for the current writer schema; any other writer schema takes
 * Avro's resolving path.
 *
 * <p>It lives in Avro's package because {@link ResolvingDecoder}'s constructor is package-private and
 * {@code customDecode} takes that type. The one call it cannot override, the final
 * {@link #readFieldOrderIfDiff()}, finds a "no reordering" action on top of the parser's stack for every
 * record (root or nested): {@link #doAction} puts it back each time it is consumed.
 *
 * <p>Checks: a union index must be below the schema's union width (all unions of the schema must have the
 * same width, {@link #unionWidth}), as the grammar would check; an enum index out of range fails in the
 * generated {@code values()[i]}. Strings, bytes and array counts are the {@link BinaryDecoder}'s own
 * checks, as on the resolving path (it delegates to the same calls). Single thread only.
 */
public final class SameSchemaDecoder extends ResolvingDecoder {
  private static final Symbol.FieldOrderAction IN_ORDER = new Symbol.FieldOrderAction(new Schema.Field[0]);

  private final int unionWidth;

  /** For records of {@code schema} whose unions all have {@code unionWidth} branches (see {@link #unionWidth}). */
  public SameSchemaDecoder(int unionWidth) throws IOException {
    super(Schema.create(Schema.Type.NULL), Schema.create(Schema.Type.NULL), null);
    this.unionWidth = unionWidth;
    parser.reset();
    parser.pushSymbol(IN_ORDER);
  }

  /**
   * The common branch count of every union in {@code schema} (0 if it has none), or -1 if the widths differ
   * (then this decoder cannot check an index against its own union, and must not be used).
   */
  public static int unionWidth(Schema schema) {
    return width(schema, 0, new java.util.HashSet<>());
  }

  private static int width(Schema s, int acc, java.util.Set<String> seen) {
    switch (s.getType()) {
      case RECORD:
        if (!seen.add(s.getFullName())) {
          return acc;
        }
        for (Schema.Field f : s.getFields()) {
          acc = width(f.schema(), acc, seen);
          if (acc < 0) {
            return -1;
          }
        }
        return acc;
      case ARRAY:
        return width(s.getElementType(), acc, seen);
      case MAP:
        return width(s.getValueType(), acc, seen);
      case UNION:
        int n = s.getTypes().size();
        if (acc != 0 && acc != n) {
          return -1;
        }
        for (Schema b : s.getTypes()) {
          int w = width(b, n, seen);
          if (w != n) {
            return -1;
          }
        }
        return n;
      default:
        return acc;
    }
  }

  /** Reads the next record from {@code binary} (no grammar state to reset: the parser only holds the action). */
  public SameSchemaDecoder on(BinaryDecoder binary) {
    this.in = binary;
    return this;
  }

  @Override
  public Symbol doAction(Symbol input, Symbol top) throws IOException {
    if (top == IN_ORDER && input == Symbol.FIELD_ACTION) {
      parser.pushSymbol(IN_ORDER); // for the next record, root or nested
      return IN_ORDER;
    }
    throw new AvroTypeException("unexpected grammar action " + top + " for " + input);
  }

  @Override
  public void readNull() throws IOException {
    in.readNull();
  }

  @Override
  public boolean readBoolean() throws IOException {
    return in.readBoolean();
  }

  @Override
  public int readInt() throws IOException {
    return in.readInt();
  }

  @Override
  public long readLong() throws IOException {
    return in.readLong();
  }

  @Override
  public float readFloat() throws IOException {
    return in.readFloat();
  }

  @Override
  public double readDouble() throws IOException {
    return in.readDouble();
  }

  @Override
  public Utf8 readString(Utf8 old) throws IOException {
    return in.readString(old);
  }

  @Override
  public String readString() throws IOException {
    return in.readString();
  }

  @Override
  public void skipString() throws IOException {
    in.skipString();
  }

  @Override
  public ByteBuffer readBytes(ByteBuffer old) throws IOException {
    return in.readBytes(old);
  }

  @Override
  public void skipBytes() throws IOException {
    in.skipBytes();
  }

  @Override
  public void readFixed(byte[] bytes, int start, int len) throws IOException {
    in.readFixed(bytes, start, len);
  }

  @Override
  public void skipFixed(int length) throws IOException {
    in.skipFixed(length);
  }

  @Override
  public int readEnum() throws IOException {
    return in.readEnum();
  }

  @Override
  public long readArrayStart() throws IOException {
    return in.readArrayStart();
  }

  @Override
  public long arrayNext() throws IOException {
    return in.arrayNext();
  }

  @Override
  public long skipArray() throws IOException {
    return in.skipArray();
  }

  @Override
  public long readMapStart() throws IOException {
    return in.readMapStart();
  }

  @Override
  public long mapNext() throws IOException {
    return in.mapNext();
  }

  @Override
  public long skipMap() throws IOException {
    return in.skipMap();
  }

  @Override
  public int readIndex() throws IOException {
    int index = in.readIndex();
    if (index < 0 || index >= unionWidth) {
      throw new AvroTypeException("union index " + index + " out of range (" + unionWidth + " branches)");
    }
    return index;
  }
}
