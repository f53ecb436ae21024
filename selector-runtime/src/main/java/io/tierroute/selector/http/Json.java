package io.tierroute.selector.http;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.tierroute.schemas.JsonWire;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The API's one {@link ObjectMapper}, strict on input (unknown fields, wrong types, floats for
 * integers, numbers or booleans for strings, duplicate keys and trailing garbage are errors), and
 * the translation of Jackson's exceptions into short messages that name the offending field.
 */
final class Json {

    static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            // ALLOW_COERCION_OF_SCALARS does not cover strings: without this, "text": 42 read as "42"
            // while "max_tokens": "256" was refused.
            .withCoercionConfig(LogicalType.Textual, c -> c
                    .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .visibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.PUBLIC_ONLY)
            .build();

    private Json() {}

    private static final java.util.regex.Pattern VALUE_IN_MESSAGE = java.util.regex.Pattern.compile("value \\('([^']*)'\\)");

    /** A message for a client whose body Jackson could not read. */
    static String describe(JsonProcessingException e) {
        if (e instanceof UnrecognizedPropertyException u) {
            String known = u.getKnownPropertyIds() == null ? "" : "; known fields: "
                    + u.getKnownPropertyIds().stream().map(Object::toString).sorted().collect(Collectors.joining(", "));
            return "unknown field '" + path(u.getPath()) + "'" + known;
        }
        if (e instanceof InvalidFormatException f) {
            return "field '" + path(f.getPath()) + "': expected " + typeName(f.getTargetType()) + ", got "
                    + quote(f.getValue());
        }
        if (e instanceof MismatchedInputException m) {
            String at = path(m.getPath());
            String what = m.getOriginalMessage();
            if (what != null && what.startsWith("block hash")) {
                return "field '" + at + "': " + what;
            }
            if (what != null && what.contains("No content to map")) {
                return "the request body is empty; expected a JSON object";
            }
            if (what != null && what.contains("Trailing token")) {
                return "malformed JSON: unexpected content after the end of the JSON value";
            }
            if (at.isEmpty()) {
                return "expected " + typeName(m.getTargetType()) + " as the request body";
            }
            return "field '" + at + "': expected " + typeName(m.getTargetType()) + tokenHint(m);
        }
        if (e instanceof InvalidDefinitionException d && d.getType() != null) {
            // e.g. a string where a list is expected: Jackson speaks of constructors; the client needs the type
            java.util.regex.Matcher v = VALUE_IN_MESSAGE.matcher(String.valueOf(d.getOriginalMessage()));
            return "field '" + path(d.getPath()) + "': expected " + typeName(d.getType().getRawClass())
                    + (v.find() ? ", got \"" + v.group(1) + "\"" : "");
        }
        if (e instanceof JsonMappingException m) {
            // a parse error or a read limit inside any nested value (a list, an events array), wrapped with its path
            if (m.getCause() instanceof JsonParseException || m.getCause() instanceof StreamConstraintsException) {
                return describe((JsonProcessingException) m.getCause());
            }
            return "field '" + path(m.getPath()) + "': " + m.getOriginalMessage();
        }
        if (e instanceof InputCoercionException c) {
            return "field '" + streamPath(c) + "': number out of range (" + c.getOriginalMessage() + ")";
        }
        if (e instanceof StreamReadException s) {
            String dup = s.getOriginalMessage();
            if (dup != null && dup.startsWith("Duplicate field")) {
                return "field '" + streamPath(s) + "' appears twice";
            }
            // The dashboard's rule too: Jackson's text names its input source and switches, the client needs positions.
            JsonLocation loc = s.getLocation();
            return JsonWire.malformed(s.getOriginalMessage(), loc == null ? 0 : loc.getLineNr(),
                    loc == null ? 0 : loc.getColumnNr());
        }
        if (e instanceof StreamConstraintsException c) { // a read limit (a number of 1,001 digits): where, and which
            JsonLocation loc = c.getLocation();
            return JsonWire.malformed(c.getOriginalMessage(), loc == null ? 0 : loc.getLineNr(),
                    loc == null ? 0 : loc.getColumnNr());
        }
        return "cannot read the request body: " + e.getOriginalMessage();
    }

    private static String tokenHint(MismatchedInputException m) {
        Object p = m.getProcessor();
        if (p instanceof JsonParser jp && jp.currentToken() != null) {
            try {
                switch (jp.currentToken()) {
                    case VALUE_STRING: return ", got \"" + jp.getText() + "\"";
                    // The parser may have moved past a number's text by now (an object where a number stood).
                    case VALUE_NUMBER_INT: case VALUE_NUMBER_FLOAT: {
                        String t = jp.getText();
                        return t == null || t.isEmpty() ? ", got a number" : ", got " + t;
                    }
                    case VALUE_TRUE: return ", got true";
                    case VALUE_FALSE: return ", got false";
                    case START_OBJECT: return ", got an object";
                    case START_ARRAY: return ", got a list";
                    case VALUE_NULL: return ", got null";
                    default: return "";
                }
            } catch (java.io.IOException ex) {
                return "";
            }
        }
        return "";
    }

    private static String streamPath(StreamReadException e) {
        JsonParser jp = e.getProcessor();
        if (jp != null) {
            JsonStreamContext ctx = jp.getParsingContext();
            StringBuilder sb = new StringBuilder();
            for (; ctx != null && !ctx.inRoot(); ctx = ctx.getParent()) {
                String seg = ctx.inArray() ? "[" + ctx.getCurrentIndex() + "]"
                        : ctx.getCurrentName() == null ? "" : ctx.getCurrentName();
                if (sb.length() > 0 && !ctx.inArray() && sb.charAt(0) != '[') {
                    sb.insert(0, '.');
                }
                sb.insert(0, seg);
            }
            return sb.toString();
        }
        return "?";
    }

    static String path(List<JsonMappingException.Reference> refs) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference r : refs) {
            if (r.getFieldName() != null) {
                if (sb.length() > 0) sb.append('.');
                sb.append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.toString();
    }

    private static String quote(Object v) {
        return v instanceof String s ? "\"" + s + "\"" : String.valueOf(v);
    }

    static String typeName(Class<?> t) {
        if (t == null) return "a value";
        if (t == int.class || t == Integer.class) return "an integer (32-bit)";
        if (t == long.class || t == Long.class) return "an integer (64-bit)";
        if (t == boolean.class || t == Boolean.class) return "true or false";
        if (t == String.class) return "a string";
        if (t == int[].class) return "a list of integers";
        if (t == long[].class) return "a list of block hashes";
        if (t.isArray() || List.class.isAssignableFrom(t)) return "a list";
        return "an object";
    }
}
