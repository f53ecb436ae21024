package io.tierroute.selector.protocol;

/** A request or event named a worker that the configuration does not know. */
public final class UnknownWorkerException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public UnknownWorkerException(String name) {
        super("unknown worker '" + name + "'");
    }
}
