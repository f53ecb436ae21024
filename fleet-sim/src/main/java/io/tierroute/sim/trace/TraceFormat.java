package io.tierroute.sim.trace;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
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

    /** The format of {@code file} by its extension: .jsonl (or .json) is Mooncake, .csv Azure. */
    public static TraceFormat ofFile(String file) {
        if (isDirectory(file)) {
            throw new IllegalArgumentException(file + ": is a directory");
        }
        String f = file.toLowerCase(Locale.ROOT);
        if (f.endsWith(".jsonl") || f.endsWith(".json")) {
            return MOONCAKE;
        }
        if (f.endsWith(".csv")) {
            return AZURE;
        }
        throw new IllegalArgumentException(file
                + ": unknown trace format (expected .jsonl or .json for Mooncake, .csv for Azure)");
    }

    // Checked first: a directory's name says nothing of a format, and "unknown format" would mislead.
    private static boolean isDirectory(String file) {
        try {
            return Files.isDirectory(Path.of(file));
        } catch (InvalidPathException e) {
            return false;
        }
    }
}
