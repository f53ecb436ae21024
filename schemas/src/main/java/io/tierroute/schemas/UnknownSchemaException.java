package io.tierroute.schemas;

/**
 * The record carries a valid single-object header, but its writer-schema fingerprint is neither
 * the current schema nor any released version of the expected record type: either the record was
 * written by a newer release (upgrade this reader) or it is a different record type (wrong topic).
 */
public final class UnknownSchemaException extends RecordDecodeException {
  private static final long serialVersionUID = 1L;

  private final long fingerprint;

  public UnknownSchemaException(String recordType, long fingerprint, String knownFingerprints) {
    super(recordType,
        "Unknown writer schema fingerprint " + RecordCodec.toHex(fingerprint) + " for record type "
            + recordType + " (known: " + knownFingerprints + "); written by a newer schema release"
            + " or not a " + recordType + " at all",
        null);
    this.fingerprint = fingerprint;
  }

  /** The CRC-64-AVRO fingerprint found in the header. */
  public long fingerprint() {
    return fingerprint;
  }

  /** {@link #fingerprint()} as 16 lower-case hex digits (big-endian, as Avro prints it). */
  public String fingerprintHex() {
    return RecordCodec.toHex(fingerprint);
  }
}
