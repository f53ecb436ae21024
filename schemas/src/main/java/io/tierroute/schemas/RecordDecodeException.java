package io.tierroute.schemas;

/**
 * A byte array could not be decoded into the expected record type. Unchecked: a consumer catches
 * it at its input boundary, counts it and sends the bytes to {@link Topics#DEAD_LETTER}.
 *
 * <p>Two kinds: {@link UnknownSchemaException} (well-formed header, but a writer schema this
 * build does not know) and {@link CorruptRecordException} (bad header, truncated or otherwise
 * malformed body, trailing bytes).
 */
public abstract class RecordDecodeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String recordType;

  protected RecordDecodeException(String recordType, String message, Throwable cause) {
    super(message, cause);
    this.recordType = recordType;
  }

  /** Simple name of the record type the caller expected, e.g. {@code KvEventBatch}. */
  public String recordType() {
    return recordType;
  }
}
