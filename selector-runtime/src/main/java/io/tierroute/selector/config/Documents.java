package io.tierroute.selector.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Reads a YAML or JSON document (configuration, parameter file) into a tree, turning I/O and
 * syntax errors into {@link ConfigException}s that name the file and the line. A file holds one
 * document: a second one, or content after the JSON value, is an error naming its line.
 */
public final class Documents {

    private static final ObjectMapper YAML = YAMLMapper.builder(new YAMLFactory())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).build();
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private Documents() {}

    /** Parses {@code file}: JSON when it ends in {@code .json}, else YAML (which also reads JSON). */
    public static JsonNode read(Path file) {
        String name = file.toString();
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException(name, "", "file not found");
        } catch (IOException e) {
            throw new ConfigException(name, "", "cannot read the file: " + e.getMessage());
        }
        boolean json = name.toLowerCase(Locale.ROOT).endsWith(".json");
        try {
            return parse(bytes, json);
        } catch (ConfigException e) {
            throw e.inFile(name);
        }
    }

    /** Parses text already in memory (tests, HTTP). */
    public static JsonNode parse(byte[] bytes, boolean json) {
        ObjectMapper mapper = json ? JSON : YAML;
        try (JsonParser p = mapper.createParser(bytes)) {
            JsonNode node = mapper.readTree(p);
            if (node == null) {
                return MissingNode.getInstance(); // no content at all, as readTree(byte[]) answers
            }
            onlyOne(p, bytes, json);
            return node;
        } catch (JsonProcessingException e) {
            throw new ConfigException("", "not valid " + (json ? "JSON" : "YAML")
                    + (e.getCause() instanceof org.yaml.snakeyaml.error.MarkedYAMLException ? "" : at(e)) + ": " + why(e));
        } catch (IOException e) {
            throw new ConfigException("", "cannot parse: " + e.getMessage());
        }
    }

    /**
     * Refuses anything after the first document. Jackson reads one document (YAML) or value (JSON) and stops, so
     * the settings of a second one, after a {@code ---} or a {@code {}}, were dropped without a word: among them
     * {@code access}, and the selector started with an open data plane. Comments, whitespace and empty documents may
     * follow.
     */
    private static void onlyOne(JsonParser p, byte[] bytes, boolean json) throws IOException {
        JsonLocation end = p.currentLocation();
        try {
            JsonToken next = p.nextToken();
            while (!json && next == JsonToken.VALUE_NULL) { // an empty document (a trailing ---) holds no setting
                next = p.nextToken();
            }
            if (next == null) {
                return;
            }
        } catch (JsonProcessingException e) {
            if (!json) {
                throw e; // SnakeYAML says what it expected ("<document start>") and where
            }
            throw new ConfigException("", "unexpected content after the end of the JSON value" + at(e) + ": " + why(e));
        }
        JsonLocation next = p.currentTokenLocation();
        if (json) {
            throw new ConfigException("", "more than one JSON value (a second one starts at line " + next.getLineNr()
                    + ", column " + next.getColumnNr() + "); put every setting in one JSON object");
        }
        throw new ConfigException("", "more than one YAML document (a second one starts at line "
                + markerLine(bytes, end, next.getLineNr()) + "); put every setting in one document");
    }

    /**
     * The line of the {@code ---} that opens the second YAML document: the parser skips the marker and reports the
     * document's first value, which may be lines below it. The first document ends at the start of the marker's
     * line (a block) or on a line before it (a flow value, a scalar).
     */
    private static int markerLine(byte[] bytes, JsonLocation end, int valueLine) {
        String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\r?\n", -1); // CRLF files too
        int from = end.getColumnNr() == 1 ? end.getLineNr() : end.getLineNr() + 1;
        for (int line = Math.max(from, 1); line <= Math.min(valueLine, lines.length); line++) {
            if (lines[line - 1].matches("---(\\s.*)?")) {
                return line;
            }
        }
        return valueLine;
    }

    private static String at(JsonProcessingException e) {
        JsonLocation at = e.getLocation();
        return at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
    }

    private static String why(JsonProcessingException e) {
        if (e.getCause() instanceof org.yaml.snakeyaml.error.MarkedYAMLException m && m.getProblem() != null) {
            // What SnakeYAML found and where, without its snippets of the lines: they quoted an inline
            // sasl.jaas.config with its password into the log (docs/security.md: an error never quotes a value).
            String context = m.getContext() == null ? "" : m.getContext() + where(m.getContextMark()) + ": ";
            return context + m.getProblem() + where(m.getProblemMark());
        }
        // SnakeYAML's wrapped decoder errors carry the Java class name in their text
        return e.getOriginalMessage().replaceFirst("^java\\.[\\w.]+Exception: ", "");
    }

    private static String where(org.yaml.snakeyaml.error.Mark mark) {
        return mark == null ? "" : " at line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1);
    }
}
