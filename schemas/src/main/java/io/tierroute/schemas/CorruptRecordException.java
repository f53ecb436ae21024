package io.tierroute.schemas;

/**
 * The bytes are not a well-formed single-object encoding of the expected record type: missing or
 * bad magic / header, a body that is truncated or malformed for its writer schema, or trailing
 * bytes after the record.
 */
public final class CorruptRecordException extends RecordDecodeException {
  private static final long serialVersionUID = 1L;

  public CorruptRecordException(String recordType, String problem, Throwable cause) {
    super(recordType, "Corrupt " + recordType + " record: " + problem, cause);
  }
}
