package io.tierroute.sim.trace;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;

/**
 * Azure LLM inference trace CSV: {@code TIMESTAMP,ContextTokens,GeneratedTokens}, timestamps like
 * {@code 2023-11-16 18:15:46.6805900} (the 2023 traces: UTC) or {@code 2024-05-10 00:00:00.009930+00:00} (the 2024
 * ones, with a UTC offset), rows in non-decreasing time (each compared with the row before). Fields may be
 * quoted, with blanks around the quotes ({@link CsvRow}); a record that spans lines (a line break inside quotes) is not one of this trace's rows.
 * Lengths and arrivals only: no prefix information, so every request's blocks are unique (ids are
 * assigned by the replay).
 */
public final class AzureReader implements TraceReader {

    private static final String[] COLUMNS = {"TIMESTAMP", "ContextTokens", "GeneratedTokens"};
    private static final String HEADER = String.join(",", COLUMNS);
    private static final DateTimeFormatter TS = new DateTimeFormatterBuilder()
            .appendPattern("uuuu-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd()
            .optionalStart().appendOffset("+HH:MM", "Z").optionalEnd()
            .toFormatter().withResolverStyle(ResolverStyle.STRICT); // SMART read 2023-02-30 as 02-28, 24:00 as 0:00


    private Instant origin;
    private String originText;
    private Instant last;
    private String lastText;

    @Override
    public int blockSize() {
        return 0;
    }

    @Override
    public boolean hasHeader() {
        return true;
    }

    @Override
    public void checkHeader(String line) {
        String[] f = CsvRow.fields(line);
        if (f.length != COLUMNS.length) { // named apart: the line shown is cut, often just where it differs
            throw new IllegalArgumentException("the header must be " + HEADER + " (" + COLUMNS.length + " columns), got "
                    + f.length + " columns: " + BadField.shorten("\"" + line + "\""));
        }
        for (int i = 0; i < f.length; i++) {
            if (!f[i].strip().equalsIgnoreCase(COLUMNS[i])) {
                throw BadField.of("the header's column " + (i + 1) + " (of " + HEADER + ")", COLUMNS[i],
                        "\"" + f[i] + "\"");
            }
        }
    }

    @Override
    public TraceRecord parse(String line, TraceRecord previous) {
        String[] f = CsvRow.fields(line); // a trailing empty column is a column
        if (f.length != COLUMNS.length) {
            throw new IllegalArgumentException("expected " + COLUMNS.length + " columns " + HEADER + ", got " + f.length);
        }
        String text = f[0].strip();
        Instant t = time(text);
        int in = tokens(COLUMNS[1], f[1], 1);
        int out = tokens(COLUMNS[2], f[2], 0);
        if (previous == null || origin == null) {
            origin = t;
            originText = text;
        } else if (t.isBefore(last)) {
            throw new IllegalArgumentException("not sorted by time: TIMESTAMP " + text
                    + " is earlier than the previous row's " + lastText);
        }
        last = t;
        lastText = text;
        long micros;
        try {
            micros = ChronoUnit.MICROS.between(origin, t);
        } catch (ArithmeticException e) {
            micros = Long.MAX_VALUE;
        }
        if (micros > TraceRecord.MAX_SPAN_MICROS) {
            throw BadField.of("column 'TIMESTAMP'", "within 366 days of the first row's, " + originText, "\"" + text + "\"");
        }
        return new TraceRecord(micros, in, out, null);
    }

    /** A time with an offset is that instant; one without is UTC, as the 2023 traces' times are. */
    private static Instant time(String text) {
        try {
            var parsed = TS.parseBest(text, OffsetDateTime::from, LocalDateTime::from);
            return parsed instanceof OffsetDateTime o ? o.toInstant() : ((LocalDateTime) parsed).toInstant(ZoneOffset.UTC);
        } catch (DateTimeException e) {
            throw BadField.of("column 'TIMESTAMP'", "a time like 2023-11-16 18:15:46.6805900 or "
                + "2024-05-10 00:00:00.009930+00:00", "\"" + text + "\"");
        }
    }

    private static int tokens(String column, String raw, int min) {
        String v = raw.strip();
        // digits only: parseInt would take "+5"; leading zeros are still the number ("0000000374" is 374)
        String digits = v.replaceFirst("^0+(?=.)", "");
        if (v.isEmpty() || digits.length() > 9 || !v.chars().allMatch(c -> c >= '0' && c <= '9')
                || Integer.parseInt(digits) < min || Integer.parseInt(digits) > TraceRecord.MAX_TOKENS) {
            throw BadField.of("column '" + column + "'", BadField.integer(min, TraceRecord.MAX_TOKENS), "\"" + v + "\"");
        }
        return Integer.parseInt(digits);
    }
}
