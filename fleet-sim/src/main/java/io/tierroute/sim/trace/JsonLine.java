package io.tierroute.sim.trace;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * One JSONL line as a JSON object. Jackson's messages carry a {@code [Source: ...]} location meant for
 * developers; the reason here is built from its parts, and the Jackson exception kept as the cause.
 */
final class JsonLine {

    // Trailing text or a repeated field would otherwise be dropped without a word.
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private JsonLine() {}

    static JsonNode object(String line) {
        JsonNode n;
        try {
            n = JSON.readTree(line);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(reason(e), e);
        }
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException("not a JSON object: " + BadField.shorten(line.strip()));
        }
        return n;
    }

    private static String reason(JsonProcessingException e) {
        if (e instanceof JsonEOFException) {
            return "not JSON: the line ends inside the object (truncated?)";
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
