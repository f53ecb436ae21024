package io.tierroute.selector.scheduling;

/** What became of a request event reported to this selector ({@link Selector#report}). */
public enum ReportedEvent {
    /** Its request was in flight here: applied. */
    APPLIED,
    /**
     * Not in flight here, told to the other replicas (replica sync): one of them routed it, or will have it applied
     * here once its admission is heard.
     */
    RELAYED,
    /** Not in flight here, and no replica sync to tell: nothing changed. */
    UNKNOWN
}
