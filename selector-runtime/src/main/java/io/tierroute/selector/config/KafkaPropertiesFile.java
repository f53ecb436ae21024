package io.tierroute.selector.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Reads {@code kafka.propertiesFile}: Kafka client properties in the {@code java.util.Properties}
 * format of Kafka's own tools' {@code --command-config} (security.protocol, sasl.*, ssl.*). Errors
 * name the file and never quote its contents, which hold passwords.
 */
final class KafkaPropertiesFile {

    /** Client properties files are a few lines; anything this large is the wrong file. */
    static final long MAX_BYTES = 1024 * 1024;

    private KafkaPropertiesFile() {}

    static Map<String, String> read(Path file, ConfigNode at) {
        Properties p = new Properties();
        try {
            if (Files.size(file) > MAX_BYTES) {
                throw at.error("the Kafka client properties file " + file + " is larger than " + MAX_BYTES + " bytes");
            }
            try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(r);
            }
        } catch (NoSuchFileException e) {
            throw at.error("the Kafka client properties file " + file + " does not exist");
        } catch (CharacterCodingException e) {
            throw at.error("the Kafka client properties file " + file + " is not UTF-8 text");
        } catch (IllegalArgumentException e) { // Properties.load's only one: its message quotes nothing of the file
            throw at.error("the Kafka client properties file " + file + " has a malformed \\uXXXX escape ("
                    + "java.util.Properties format: a backslash before 'u' starts one)");
        } catch (IOException e) {
            throw at.error(Files.isDirectory(file) ? "the Kafka client properties file " + file + " is a directory"
                    : "cannot read the Kafka client properties file " + file + " (" + e.getClass().getSimpleName() + ")");
        }
        Map<String, String> out = new TreeMap<>();
        for (String key : p.stringPropertyNames()) {
            out.put(key.trim(), p.getProperty(key).trim());
        }
        return out;
    }
}
