package io.tierroute.sim.trace;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;

/**
 * Azure LLM inference trace 2023 CSV: {@code TIMESTAMP,ContextTokens,GeneratedTokens}, timestamps like
 * {@code 2023-11-16 18:15:46.6805900}. Lengths and arrivals only: no prefix information, so every
 * request's blocks are unique (ids are assigned by the replay).
 */
public final class AzureReader implements TraceReader {

    private static final DateTimeFormatter TS = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd()
            .toFormatter();

    private LocalDateTime origin;

    @Override
    public int blockSize() {
        return 0;
    }

    @Override
    public boolean hasHeader() {
        return true;
    }

    @Override
    public TraceRecord parse(String line, TraceRecord previous) {
        String[] f = line.split(",");
        if (f.length != 3) {
            throw new IllegalArgumentException("expected 3 fields TIMESTAMP,ContextTokens,GeneratedTokens, got " + f.length);
        }
        LocalDateTime t = LocalDateTime.parse(f[0].trim(), TS);
        if (previous == null || origin == null) {
            origin = t;
        }
        long micros = ChronoUnit.MICROS.between(origin, t);
        int in = Integer.parseInt(f[1].trim());
        int out = Integer.parseInt(f[2].trim());
        if (in <= 0 || out < 0 || micros < 0) {
            throw new IllegalArgumentException("need ContextTokens > 0, GeneratedTokens ≥ 0, non-decreasing time");
        }
        TraceRecord.checkLengths("ContextTokens", in, "GeneratedTokens", out);
        return new TraceRecord(micros, in, out, null);
    }
}
