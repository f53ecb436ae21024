package io.tierroute.sim.trace;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;

import java.io.IOException;

/**
 * One line of a CSV trace as its fields, read as RFC 4180 reads them: a field may be quoted (a comma inside it is
 * text, {@code ""} is a quote). The Azure trace files quote nothing, but the same columns re-exported by a spreadsheet
 * or by pandas may quote every field; split on commas, {@code "374"} was refused as a number and a quoted field with a
 * comma miscounted the columns. Blanks (spaces, tabs) between a quoted field and its commas are skipped, as lenient
 * readers skip them: {@code 1, "374" ,44} is 374.
 */
final class CsvRow {

    private static final ObjectReader READER = new CsvMapper().enable(CsvParser.Feature.WRAP_AS_ARRAY)
            .readerFor(String[].class);

    private CsvRow() {}

    /** The fields of {@code line} (one empty field for an empty line); a quote left open is refused. */
    static String[] fields(String line) {
        if (line.indexOf('"') < 0) {
            return line.split(",", -1); // no quoting: the same fields, without a parser per line
        }
        try (MappingIterator<String[]> rows = READER.readValues(unpadQuotedFields(line))) {
            return rows.hasNextValue() ? rows.nextValue() : new String[] {""};
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a CSV row: " + e.getOriginalMessage());
        } catch (IOException e) { // reading a String: only the parser's own complaints are possible
            throw new IllegalArgumentException("not a CSV row: " + e.getMessage(), e);
        }
    }

    /**
     * {@code line} without the blanks around its quoted fields. Jackson reads a field with a blank before its opening
     * quote as unquoted text, quotes and all ({@code  "374"}); its TRIM_SPACES would skip them, but it trims every
     * character up to U+0020, control characters too, not only blanks. Nothing within quotes changes; a field whose
     * quote is left open is passed on from that quote, for the parser to refuse (a blank before it must not make it
     * unquoted text, which the parser takes).
     */
    static String unpadQuotedFields(String line) {
        StringBuilder out = new StringBuilder(line.length());
        int n = line.length();
        int i = 0; // the start of a field
        while (true) {
            int open = i;
            while (open < n && isBlank(line.charAt(open))) {
                open++;
            }
            if (open == n || line.charAt(open) != '"') { // unquoted: its blanks are its own, up to the next comma
                int comma = line.indexOf(',', i);
                if (comma < 0) {
                    return out.append(line, i, n).toString();
                }
                out.append(line, i, comma + 1);
                i = comma + 1;
                continue;
            }
            int close = closingQuote(line, open);
            if (close < 0) {
                return out.append(line, open, n).toString();
            }
            out.append(line, open, close + 1);
            int next = close + 1;
            while (next < n && isBlank(line.charAt(next))) {
                next++;
            }
            if (next == n) {
                return out.toString();
            }
            if (line.charAt(next) != ',') { // text after the closing quote: left as it is, for the parser to refuse
                return out.append(line, close + 1, n).toString();
            }
            out.append(',');
            i = next + 1;
        }
    }

    /** The index of the quote closing the field opened at {@code open} ({@code ""} within is a quote), or -1. */
    private static int closingQuote(String line, int open) {
        for (int k = open + 1; k < line.length(); k++) {
            if (line.charAt(k) == '"') {
                if (k + 1 < line.length() && line.charAt(k + 1) == '"') {
                    k++;
                } else {
                    return k;
                }
            }
        }
        return -1;
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t';
    }
}
