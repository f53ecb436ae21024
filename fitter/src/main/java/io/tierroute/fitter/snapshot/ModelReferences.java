package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.snapshot.ModelCarrier;
import java.util.List;
import java.util.Objects;

/**
 * Puts a gated snapshot in the form it is published in: its quantile forest in full only where it first travels, and
 * by the carrying record's version everywhere after ({@link ModelCarrier}). The assembler and the gate work on
 * snapshots that hold their model (the gate compares it with the active one); only the published record drops it.
 * Without this every snapshot re-carried the same ~0.5 MB forest each publish interval, and the compacted params
 * topic, which keeps every version, grew by 1.7 GB an hour (uncompressed; ~0.46 GB stored in gzip batches).
 */
public final class ModelReferences {
    private ModelReferences() {
    }

    /** A record already published with {@code model} in full. */
    public record Carrier(long version, QuantileForestModel model) {
        public Carrier {
            Objects.requireNonNull(model, "model");
        }
    }

    /**
     * The record to publish for {@code gated}: its model replaced by the version of the first {@code known} carrier
     * of an equal model, else carried in full under its own version; no model, no reference.
     */
    public static ParameterSnapshot forPublication(ParameterSnapshot gated, List<Carrier> known) {
        QuantileForestModel m = gated.getQuantileModel();
        ParameterSnapshot out = shallowCopy(gated);
        out.setQuantileModelVersion(m == null ? null : gated.getVersion());
        if (m != null) {
            for (Carrier c : known) {
                if (c.version() < gated.getVersion() && (c.model() == m || c.model().equals(m))) {
                    out.setQuantileModel(null);
                    out.setQuantileModelVersion(c.version());
                    break;
                }
            }
        }
        return out;
    }

    /** A copy sharing {@code s}'s field values: a builder would deep-copy the forest each publish to then drop it. */
    private static ParameterSnapshot shallowCopy(ParameterSnapshot s) {
        ParameterSnapshot copy = new ParameterSnapshot();
        for (int i = 0; i < s.getSchema().getFields().size(); i++) {
            copy.put(i, s.get(i));
        }
        return copy;
    }

    /** The carrier of {@code active}'s model (an earlier record, or {@code active} itself), or null without one. */
    public static Carrier carrierOf(ParameterSnapshot active) {
        if (active == null || active.getQuantileModel() == null) {
            return null;
        }
        return new Carrier(ModelCarrier.versionOf(active), active.getQuantileModel());
    }
}
