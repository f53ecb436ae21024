package io.tierroute.cli.manifests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Every document of every {@code deploy/k8s/*.yaml} file, parsed with Jackson YAML. */
final class Manifests {

    /** One Kubernetes object and the file it came from. */
    record Doc(Path file, JsonNode node) {
        String kind() {
            return node.path("kind").asText();
        }

        String apiVersion() {
            return node.path("apiVersion").asText();
        }

        String name() {
            return node.path("metadata").path("name").asText();
        }
    }

    private static final YAMLMapper YAML = new YAMLMapper();

    private Manifests() {}

    /** The repository root: the first ancestor of the working directory holding deploy/k8s. */
    static Path root() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("deploy/k8s"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("no deploy/k8s above " + Path.of("").toAbsolutePath());
        }
        return p;
    }

    static List<Doc> load(Path dir) {
        List<Doc> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(x -> x.toString().endsWith(".yaml")).sorted().toList()) {
                try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(f.toFile())) {
                    while (it.hasNext()) {
                        JsonNode n = it.next();
                        if (n != null && !n.isNull() && !n.isMissingNode()) {
                            out.add(new Doc(f, n));
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** The single object of {@code kind} named {@code name}. */
    static JsonNode one(List<Doc> docs, String kind, String name) {
        List<JsonNode> found = docs.stream().filter(d -> d.kind().equals(kind) && d.name().equals(name))
            .map(Doc::node).toList();
        if (found.size() != 1) {
            throw new AssertionError("expected one " + kind + " " + name + " in deploy/k8s, found " + found.size());
        }
        return found.get(0);
    }

    static List<JsonNode> all(List<Doc> docs, String kind) {
        return docs.stream().filter(d -> d.kind().equals(kind)).map(Doc::node).toList();
    }

    static JsonNode yaml(String text) throws IOException {
        return YAML.readTree(text);
    }
}
