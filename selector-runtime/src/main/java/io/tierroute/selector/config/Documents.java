package io.tierroute.selector.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Reads a YAML or JSON document (configuration, parameter file) into a tree, turning I/O and
 * syntax errors into {@link ConfigException}s that name the file and the line.
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
        try {
            JsonNode node = (json ? JSON : YAML).readTree(bytes);
            return node;
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
            // SnakeYAML's wrapped decoder errors carry the Java class name in their text
            String why = e.getOriginalMessage().replaceFirst("^java\\.[\\w.]+Exception: ", "");
            throw new ConfigException("", "not valid " + (json ? "JSON" : "YAML") + where + ": " + why);
        } catch (IOException e) {
            throw new ConfigException("", "cannot parse: " + e.getMessage());
        }
    }
}
