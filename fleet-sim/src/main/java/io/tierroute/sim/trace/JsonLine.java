package io.tierroute.sim.trace;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * One JSONL line as a JSON object. Jackson's messages carry a {@code [Source: ...]} location meant for
 * developers; the reason here is built from its parts, and the Jackson exception kept as the cause. The two
 * mistakes of a file that is JSON but not JSONL are named as such: a JSON array (its first line {@code [}, its
 * records followed by commas), and several records on one line.
 */
final class JsonLine {

    /** What JSONL asks of every line, for the messages of a line that is JSON but not one object. */
    static final String ONE_OBJECT_PER_LINE = "each line must hold one JSON object";

    // A repeated field would otherwise be dropped without a word.
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private JsonLine() {}

    static JsonNode object(String line) {
        if (line.stripLeading().startsWith("[")) {
            // Read as JSON, "[" alone ends inside the array ("truncated?") and "[{...}]" is "not an object".
            throw new IllegalArgumentException("a JSON array is not JSONL: " + ONE_OBJECT_PER_LINE
                    + ", with no [ ] around the records and no commas between them");
        }
        JsonNode n;
        try (JsonParser p = JSON.createParser(line)) {
            n = JSON.readTree(p);
            // Checked here rather than by FAIL_ON_TRAILING_TOKENS, whose message names Jackson's internals.
            int end = (int) p.currentLocation().getCharOffset();
            if (n != null && line.substring(end).strip().startsWith(",")) {
                throw new IllegalArgumentException("a comma after the record at column " + (line.indexOf(',', end) + 1)
                        + ": " + ONE_OBJECT_PER_LINE + " (JSONL), with no commas between records");
            }
            if (n != null && p.nextToken() != null) {
                throw new IllegalArgumentException("a second JSON value at column " + p.currentTokenLocation().getColumnNr()
                        + ": " + ONE_OBJECT_PER_LINE + " (JSONL), one record per line");
            }
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(reason(e), e);
        } catch (IOException e) { // a String has no I/O to fail
            throw new UncheckedIOException(e);
        }
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException("not a JSON object: " + BadField.shorten(line.strip()));
        }
        return n;
    }

    private static String reason(JsonProcessingException e) {
        if (e instanceof JsonEOFException) {
            return "not JSON: the line ends inside the object (truncated? or pretty-printed: JSONL holds one object per"
                    + " line, e.g. jq -c)";
        }
        String why = e.getOriginalMessage();
        for (String noise : new String[] {"\n", " (start marker", "[Source"}) {
            int at = why.indexOf(noise);
            why = at < 0 ? why : why.substring(0, at);
        }
        int column = e.getLocation() == null ? -1 : e.getLocation().getColumnNr();
        return "not JSON" + (column > 0 ? " at column " + column : "") + ": " + why.strip();
    }
}
