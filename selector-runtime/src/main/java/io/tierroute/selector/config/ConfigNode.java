package io.tierroute.selector.config;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A read-only view of one node of a parsed YAML/JSON document that knows its own path, so every
 * accessor can fail with a {@link ConfigException} naming the field and saying what is wrong.
 * Objects are opened with the keys they allow, and an unknown key (a typo) is rejected by name.
 */
public final class ConfigNode {

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h|d)");

    private final JsonNode node;
    private final String path;

    private ConfigNode(JsonNode node, String path) {
        this.node = node;
        this.path = path;
    }

    /** The document's root; must be a mapping. */
    public static ConfigNode root(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            throw new ConfigException("", "the document is empty; expected a mapping of settings");
        }
        return new ConfigNode(node, "");
    }

    public String path() { return path; }

    private String child(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    public ConfigException error(String problem) {
        return new ConfigException(path, problem);
    }

    /** Requires a mapping whose keys are all in {@code allowed}; names unknown keys and suggests the closest. */
    public ConfigNode object(String... allowed) {
        if (!node.isObject()) {
            throw error("must be a mapping, got " + describe(node));
        }
        Set<String> ok = new LinkedHashSet<>(List.of(allowed));
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!ok.contains(key)) {
                String near = closest(key, ok);
                throw new ConfigException(child(key), "unknown key" + (near == null ? "" : " (did you mean '" + near + "'?)")
                        + "; allowed here: " + String.join(", ", ok));
            }
        }
        return this;
    }

    /** True when {@code key} is present and not null. */
    public boolean has(String key) {
        JsonNode v = node.get(key);
        return v != null && !v.isNull();
    }

    /** The child node; null when absent or null. */
    public ConfigNode get(String key) {
        JsonNode v = node.get(key);
        return v == null || v.isNull() ? null : new ConfigNode(v, child(key));
    }

    public ConfigNode require(String key) {
        ConfigNode c = get(key);
        if (c == null) {
            throw new ConfigException(child(key), "is required");
        }
        return c;
    }

    public boolean isArray() { return node.isArray(); }
    public boolean isObject() { return node.isObject(); }

    /** The elements of a sequence. */
    public List<ConfigNode> elements() {
        if (!node.isArray()) {
            throw error("must be a list, got " + describe(node));
        }
        List<ConfigNode> out = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            out.add(new ConfigNode(node.get(i), path + "[" + i + "]"));
        }
        return out;
    }

    /** The entries of a mapping, in document order. */
    public List<Map.Entry<String, ConfigNode>> entries() {
        if (!node.isObject()) {
            throw error("must be a mapping, got " + describe(node));
        }
        List<Map.Entry<String, ConfigNode>> out = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            out.add(Map.entry(e.getKey(), new ConfigNode(e.getValue(), child(e.getKey()))));
        }
        return out;
    }

    // ---- scalars of this node ----

    /**
     * A string as written. A YAML number or boolean is refused, with the advice to quote it: Jackson hands over its own
     * rewrite of a number, not the text ({@code 007} is "7", {@code 0123} octal "83", {@code 3.10} "3.1"), so a worker
     * name, a model name (part of every block hash's salt) or a password written bare became another one, silently.
     */
    public String asText() {
        if (node.isNumber() || node.isBoolean()) {
            // no value quoted: it may be a password
            throw error("must be a string; quote it (YAML reads a bare " + (node.isNumber() ? "number" : "boolean")
                    + " here, and passes on its own rewrite of it, not what was written: 007 reads as 7)");
        }
        return asTextOrScalar();
    }

    /** This string as a file path; a string no path can be (a NUL character, say) is an error naming the field. */
    public java.nio.file.Path asPath() {
        String text = asText();
        try {
            return java.nio.file.Path.of(text);
        } catch (java.nio.file.InvalidPathException e) {
            throw error("is not a usable file path: " + e.getReason());
        }
    }

    /**
     * A string, or a number or boolean as YAML read it: for a Kafka client setting's value, where {@code linger.ms: 5}
     * is natural ({@link #asText} for everything else).
     */
    public String asTextOrScalar() {
        if (!node.isTextual() && !node.isNumber() && !node.isBoolean()) {
            throw error("must be a string, got " + describe(node));
        }
        String s = node.asText().trim();
        if (s.isEmpty()) {
            throw error("must not be empty");
        }
        return s;
    }

    /** A finite number; YAML strings such as {@code 64e9} (which YAML 1.1 leaves as text) are accepted. */
    public double asNumber() {
        if (node.isNumber()) {
            double v = node.asDouble();
            if (!Double.isFinite(v)) throw error("must be a finite number, got " + Documents.written(node)); // 1e400
            return v;
        }
        if (node.isTextual()) {
            String s = node.asText().trim().replace("_", "");
            try {
                double v = Double.parseDouble(s);
                if (Double.isFinite(v) && !s.isEmpty() && !s.endsWith("d") && !s.endsWith("f")
                        && !s.endsWith("D") && !s.endsWith("F")) {
                    return v;
                }
            } catch (NumberFormatException ignored) {
                // fall through to the error below
            }
        }
        throw error("must be a number, got " + describe(node));
    }

    public long asLong() {
        if (node.isIntegralNumber() && node.canConvertToLong()) {
            return node.asLong(); // exact up to Long.MAX_VALUE, which a double cannot say
        }
        double v = asNumber();
        if (v != Math.rint(v) || Math.abs(v) > 9.0e18) {
            throw error("must be a whole number, got " + Documents.written(node));
        }
        if (node.isIntegralNumber()) {
            return node.asLong();
        }
        return (long) v;
    }

    public boolean asBoolean() {
        if (!node.isBoolean()) {
            throw error("must be true or false, got " + describe(node));
        }
        return node.asBoolean();
    }

    /** A duration with a unit: {@code 250ms}, {@code 120s}, {@code 5m}, {@code 1h}, {@code 1d}. */
    public Duration asDuration() {
        if (!node.isTextual()) {
            throw error("must be a duration with a unit such as 250ms, 120s, 5m, 1h, got " + describe(node));
        }
        String s = node.asText().trim().toLowerCase(Locale.ROOT);
        Matcher m = DURATION.matcher(s);
        if (!m.matches()) {
            throw error("must be a duration with a unit such as 250ms, 120s, 5m, 1h, got '" + node.asText() + "'");
        }
        double amount = Double.parseDouble(m.group(1));
        double millis = switch (m.group(2)) {
            case "ms" -> amount;
            case "s" -> amount * 1e3;
            case "m" -> amount * 60e3;
            case "h" -> amount * 3600e3;
            default -> amount * 86400e3;
        };
        if (millis > 365 * 86400e3) {
            throw error("must be at most a year, got '" + node.asText() + "'");
        }
        return Duration.ofNanos(Math.round(millis * 1e6));
    }

    // ---- typed children with defaults and bounds ----

    public String string(String key, String dflt) {
        ConfigNode c = get(key);
        return c == null ? dflt : c.asText();
    }

    public boolean bool(String key, boolean dflt) {
        ConfigNode c = get(key);
        return c == null ? dflt : c.asBoolean();
    }

    /** A number in {@code [min, max]} ({@code minExclusive} makes the lower bound strict); {@code unit} goes into messages. */
    public double number(String key, double dflt, double min, boolean minExclusive, double max, String unit) {
        ConfigNode c = get(key);
        return c == null ? dflt : c.checkRange(c.asNumber(), min, minExclusive, max, unit);
    }

    public long integer(String key, long dflt, long min, long max, String unit) {
        ConfigNode c = get(key);
        if (c == null) {
            return dflt;
        }
        long v = c.asLong();
        c.checkRange(v, min, false, max, unit);
        return v;
    }

    public Duration duration(String key, Duration dflt) {
        ConfigNode c = get(key);
        if (c == null) {
            return dflt;
        }
        Duration d = c.asDuration();
        if (d.isZero()) {
            throw c.error("must be longer than 0, got '" + c.node.asText() + "'");
        }
        return d;
    }

    /**
     * A duration in {@code [min, max]}, or {@code dflt} when absent; {@code why} says in the message why the bound is
     * where it is.
     */
    public Duration duration(String key, Duration dflt, Duration min, Duration max, String why) {
        ConfigNode c = get(key);
        if (c == null) {
            return dflt;
        }
        Duration d = c.asDuration();
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw c.error("must be between " + durationText(min) + " and " + durationText(max) + " (" + why + "), got '"
                    + c.node.asText() + "'");
        }
        return d;
    }

    /** A bound as a config would write it: {@code 100ms}, {@code 600s} (seconds cut 100 ms to "0s"). */
    static String durationText(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }

    /** As {@link #duration}, where 0 is a value (for example "no limit"): {@code 0s}, {@code 0ms}… */
    public Duration durationOrZero(String key, Duration dflt) {
        ConfigNode c = get(key);
        return c == null ? dflt : c.asDuration();
    }

    /**
     * Checks {@code v}, this node's value, against a range; the message says the bound and the value as the document
     * wrote it.
     */
    public double checkRange(double v, double min, boolean minExclusive, double max, String unit) {
        String u = unit == null || unit.isEmpty() ? "" : " " + unit;
        boolean low = minExclusive ? !(v > min) : !(v >= min);
        if (low || v > max) {
            String range;
            if (max >= 1e15) {
                range = (minExclusive ? "> " : "≥ ") + fmt(min);
            } else {
                range = (minExclusive ? "in (" : "in [") + fmt(min) + ", " + fmt(max) + "]";
            }
            throw error("must be a number " + range + u + ", got " + written(v));
        }
        return v;
    }

    /**
     * {@code v} as the document wrote it when it is this node's value ({@code 6e2}, {@code "1_000"}): a reformatted one
     * ({@code 600}) is not what the user will find in the file. Any other value is formatted.
     */
    private String written(double v) {
        if (node.isNumber() && node.asDouble() == v) {
            return Documents.written(node);
        }
        if (node.isTextual()) {
            String s = node.asText().trim();
            try {
                if (Double.parseDouble(s.replace("_", "")) == v) {
                    return s;
                }
            } catch (NumberFormatException ignored) {
                // not this node's value: formatted below
            }
        }
        return fmt(v);
    }

    static String fmt(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return Double.toString(v);
    }

    static String describe(JsonNode n) {
        if (n == null || n.isNull()) return "null";
        if (n.isTextual()) return "'" + n.asText() + "'";
        if (n.isNumber()) return Documents.written(n);
        if (n.isBoolean()) return n.asText();
        if (n.isArray()) return "a list";
        if (n.isObject()) return "a mapping";
        return n.getNodeType().toString().toLowerCase(Locale.ROOT);
    }

    /** The allowed key within edit distance 2 of {@code key}, or null. */
    static String closest(String key, Set<String> allowed) {
        String best = null;
        int bestD = 3;
        for (String a : allowed) {
            int d = distance(key.toLowerCase(Locale.ROOT), a.toLowerCase(Locale.ROOT));
            if (d < bestD) {
                bestD = d;
                best = a;
            }
        }
        return best;
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) prev[j] = j;
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            int[] t = prev; prev = cur; cur = t;
        }
        return prev[b.length()];
    }
}
