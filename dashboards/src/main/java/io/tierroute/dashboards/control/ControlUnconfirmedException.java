package io.tierroute.dashboards.control;

/**
 * A pin, unpin or rollback that reached Kafka but was not confirmed: committed and not read back in time, or a commit
 * the broker did not confirm and that may still land. Not a refusal: the write stands (or may), so a client that
 * retries it as "nothing written" would act twice, e.g. a rollback without {@code from} moving the scope back two
 * versions. The API answers it 202 ({@code "written": true} or {@code null} when it may land, {@code "confirmed":
 * false}), as the CLI exits 3 ("do not repeat").
 */
public final class ControlUnconfirmedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient ControlWriter.Written write;
    private final Boolean written;

    ControlUnconfirmedException(ControlWriter.Written write, Boolean written, String message, Throwable cause) {
        super(message, cause);
        this.write = write;
        this.written = written;
    }

    /** The record as it was written (or sent), with its sequence. */
    public ControlWriter.Written write() {
        return write;
    }

    /** True: committed, not read back yet; null: the broker did not confirm the commit, it may still land. */
    public Boolean written() {
        return written;
    }
}
