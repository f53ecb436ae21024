package io.tierroute.sim.trace;

import java.util.Locale;
import java.util.function.Supplier;

/** The trace formats the simulator replays, each a constructor of its reader. */
public enum TraceFormat {
    /** Mooncake JSONL with 512-token block ids. */
    MOONCAKE(MooncakeReader::new),
    /** Azure LLM inference 2023 CSV (lengths and arrivals). */
    AZURE(AzureReader::new);

    private final Supplier<TraceReader> factory;

    TraceFormat(Supplier<TraceReader> factory) {
        this.factory = factory;
    }

    public TraceReader newReader() {
        return factory.get();
    }

    /** The format of {@code file} by its extension: .jsonl is Mooncake, .csv Azure. */
    public static TraceFormat ofFile(String file) {
        String f = file.toLowerCase(Locale.ROOT);
        if (f.endsWith(".jsonl") || f.endsWith(".json")) {
            return MOONCAKE;
        }
        if (f.endsWith(".csv")) {
            return AZURE;
        }
        throw new IllegalArgumentException("cannot tell the trace format of '" + file
                + "' (expected .jsonl for Mooncake or .csv for Azure)");
    }
}
