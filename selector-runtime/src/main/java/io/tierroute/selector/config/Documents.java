package io.tierroute.selector.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Reads a YAML or JSON document (configuration, parameter file) into a tree, turning I/O and
 * syntax errors into {@link ConfigException}s that name the file and the line. A file holds one
 * document: a second one, or content after the JSON value, is an error naming its line. A number
 * keeps the text the document wrote ({@link #written}), so a message can quote {@code 6e2}, not {@code 600.0}.
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
            if (p.nextToken() == null) {
                return MissingNode.getInstance(); // no content at all, as readTree(byte[]) answers
            }
            JsonNode node = tree(p);
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
     * The text a number node of a parsed document was written as ({@code 6e2}, {@code 1_000}, {@code 0x1F}), else
     * {@link JsonNode#asText}: Jackson's own rendering of a number is its value reformatted ({@code 600.0}), which a
     * message quoting the user's value must not show.
     */
    static String written(JsonNode node) {
        return node instanceof Written w ? w.written() : node.asText();
    }

    /**
     * The value at {@code p}'s current token, with the nodes {@code readTree} builds except that numbers remember their
     * text. Recursion is bounded: the parser refuses nesting deeper than {@code StreamReadConstraints} allows (1000).
     */
    private static JsonNode tree(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT -> {
                ObjectNode o = NODES.objectNode();
                for (String key = p.nextFieldName(); key != null; key = p.nextFieldName()) {
                    p.nextToken();
                    o.set(key, tree(p)); // a repeated key never gets here: STRICT_DUPLICATE_DETECTION
                }
                return o;
            }
            case START_ARRAY -> {
                ArrayNode a = NODES.arrayNode();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    a.add(tree(p));
                }
                return a;
            }
            case VALUE_STRING -> {
                return TextNode.valueOf(p.getText());
            }
            case VALUE_NUMBER_INT -> {
                return switch (p.getNumberType()) {
                    case INT -> new WrittenInt(p.getIntValue(), p.getText());
                    case LONG -> new WrittenLong(p.getLongValue(), p.getText());
                    default -> new WrittenBigInteger(p.getBigIntegerValue(), p.getText());
                };
            }
            case VALUE_NUMBER_FLOAT -> {
                return new WrittenDouble(p.getDoubleValue(), p.getText());
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return BooleanNode.valueOf(t == JsonToken.VALUE_TRUE);
            }
            case VALUE_NULL -> {
                return NullNode.getInstance();
            }
            case VALUE_EMBEDDED_OBJECT -> { // YAML's !!binary
                Object o = p.getEmbeddedObject();
                return o == null ? NullNode.getInstance()
                        : o instanceof byte[] b ? BinaryNode.valueOf(b) : NODES.pojoNode(o);
            }
            default -> throw new IllegalStateException("unexpected token " + t + " at the start of a value");
        }
    }

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** A number node that keeps its text as written; the node types are {@code readTree}'s, so it reads the same. */
    private interface Written {
        String written();
    }

    private static final class WrittenInt extends IntNode implements Written {
        private final String written;
        WrittenInt(int v, String written) { super(v); this.written = written; }
        @Override public String written() { return written; }
    }

    private static final class WrittenLong extends LongNode implements Written {
        private final String written;
        WrittenLong(long v, String written) { super(v); this.written = written; }
        @Override public String written() { return written; }
    }

    private static final class WrittenBigInteger extends BigIntegerNode implements Written {
        private final String written;
        WrittenBigInteger(BigInteger v, String written) { super(v); this.written = written; }
        @Override public String written() { return written; }
    }

    private static final class WrittenDouble extends DoubleNode implements Written {
        private final String written;
        WrittenDouble(double v, String written) { super(v); this.written = written; }
        @Override public String written() { return written; }
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
