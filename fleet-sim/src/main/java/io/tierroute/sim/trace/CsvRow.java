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
 * comma miscounted the columns.
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
        try (MappingIterator<String[]> rows = READER.readValues(line)) {
            return rows.hasNextValue() ? rows.nextValue() : new String[] {""};
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a CSV row: " + e.getOriginalMessage());
        } catch (IOException e) { // reading a String: only the parser's own complaints are possible
            throw new IllegalArgumentException("not a CSV row: " + e.getMessage(), e);
        }
    }
}
