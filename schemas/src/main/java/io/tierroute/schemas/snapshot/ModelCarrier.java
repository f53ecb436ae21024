package io.tierroute.schemas.snapshot;

import io.tierroute.schemas.avro.ParameterSnapshot;

/**
 * Which record of {@code tierroute.params} carries a snapshot's output-length model. A quantile forest (about 0.5 MB)
 * changes once per training while a snapshot is published every second, so the job writes it in full once, in the
 * first record that uses it, and every later record of the scope names that record's version in
 * {@code quantileModelVersion} instead ({@code quantileModel} null). Records written before the field existed carry
 * their model inline and read as null there. Every reader (selector, dashboard, CLI) resolves a model through here.
 */
public final class ModelCarrier {
    private ModelCarrier() {
    }

    /**
     * The version whose record carries {@code s}'s model: the named one, or {@code s}'s own for a model carried inline
     * by an older writer; null when {@code s} has no model.
     */
    public static Long versionOf(ParameterSnapshot s) {
        if (s.getQuantileModelVersion() != null) {
            return s.getQuantileModelVersion();
        }
        return s.getQuantileModel() != null ? s.getVersion() : null;
    }

    /** Whether {@code s} names its model in another record instead of carrying it: the reader must fetch that one. */
    public static boolean refersElsewhere(ParameterSnapshot s) {
        return s.getQuantileModel() == null && s.getQuantileModelVersion() != null
            && s.getQuantileModelVersion() != s.getVersion();
    }

    /** Whether {@code s} carries a model in full (so a later record may refer to it by {@code s}'s version). */
    public static boolean carries(ParameterSnapshot s) {
        return s.getQuantileModel() != null;
    }

    /**
     * Why {@code s}'s reference cannot be right, or null: a record carrying its model must name itself (or nothing,
     * as an older writer did), and one referring to a model must name an earlier version.
     */
    public static String problem(ParameterSnapshot s) {
        Long ref = s.getQuantileModelVersion();
        if (ref == null) {
            return null;
        }
        if (s.getQuantileModel() != null && ref != s.getVersion()) {
            return "quantileModelVersion " + ref + " names another record although version " + s.getVersion()
                + " carries its model itself";
        }
        if (s.getQuantileModel() == null && (ref < 1 || ref >= s.getVersion())) {
            return "quantileModelVersion " + ref + " is not an earlier version than " + s.getVersion()
                + " (a model is carried in full by the first record that uses it)";
        }
        return null;
    }
}
