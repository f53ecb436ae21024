package io.tierroute.dashboards.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.tierroute.schemas.JsonWire;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

import java.io.CharConversionException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * JSON in and out: strict reading of small bodies (unknown fields, wrong types and trailing
 * content are 400s that name the problem); writing with non-finite numbers as strings
 * ({@code "NaN"}), since a rejected snapshot may carry them and JSON has no NaN.
 */
final class JsonIo {

    static final int MAX_BODY = 16 * 1024;

    static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            // "version": "3" is a client that sends the wrong type: said, as "from": "x" is, not read as 3.
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .withCoercionConfig(LogicalType.Textual, c -> c
                    .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(JsonWriteFeature.WRITE_NAN_AS_STRINGS)
            .build();

    private JsonIo() {}

    static void send(HttpServerExchange ex, int status, Object body) {
        byte[] bytes;
        try {
            bytes = MAPPER.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        if (!ex.isRequestComplete()) {
            // A body declared and not read (a 401 before it, a GET that reads none, a 413): the connection is closed
            // after this answer. Kept, Undertow would drain the rest on one of the 8 worker threads, as long as the
            // client takes to send it: eight such requests, no token needed, held the whole dashboard.
            ex.setPersistent(false);
        }
        ex.setStatusCode(status);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
        ex.getResponseHeaders().put(Headers.CACHE_CONTROL, "no-store");
        ex.getResponseSender().send(ByteBuffer.wrap(bytes));
    }

    static void error(HttpServerExchange ex, int status, String message) {
        send(ex, status, Map.of("error", message));
    }

    private static final java.util.regex.Pattern COERCED_STRING = java.util.regex.Pattern.compile("String value \\(\"(.{0,64}?)\"\\)");

    /**
     * A value of the wrong JSON type, said in the API's terms ("field 'version' must be a whole number, got 224.5")
     * rather than Jackson's, which names its classes and its CoercionConfig.
     */
    static String wrongType(MismatchedInputException e) {
        String field = e.getPath().isEmpty() ? null : e.getPath().get(e.getPath().size() - 1).getFieldName();
        if (field == null) {
            return "malformed request body: expected a JSON object";
        }
        Class<?> t = e.getTargetType();
        String expected = t == Long.class || t == Integer.class || t == long.class || t == int.class ? "a whole number"
                : t == String.class ? "a string" : "a " + (t == null ? "value of another type" : t.getSimpleName());
        Object got = e instanceof InvalidFormatException f ? f.getValue() : null;
        if (got == null) { // "Cannot coerce String value ("3") to `java.lang.Long` value": the wrong JSON type
            java.util.regex.Matcher m = COERCED_STRING.matcher(String.valueOf(e.getOriginalMessage()));
            got = m.find() ? "\"" + m.group(1) + "\" (a string)" : null;
        }
        return "field '" + field + "' must be " + expected + (got == null ? "" : ", got " + got);
    }

    /** Reads the (blocking) request body into {@code type}; {@link HttpError} 400 / 413 / 415 on bad input. */
    static <T> T read(HttpServerExchange ex, Class<T> type) {
        String ct = ex.getRequestHeaders().getFirst(Headers.CONTENT_TYPE);
        // The media type itself, its parameters (charset=utf-8) aside: "application/jsonfoo" is another type.
        if (ct != null && !ct.split(";", 2)[0].strip().equalsIgnoreCase("application/json")) {
            throw new HttpError(415, "send the body as application/json, got " + ct);
        }
        long declared = ex.getRequestContentLength();
        if (declared > MAX_BODY) { // said before a byte of it is read (or a 100 Continue sent)
            throw new HttpError(413, "the request body is larger than " + MAX_BODY + " bytes");
        }
        byte[] body;
        try {
            // Not closed here: closing drains what is left of a body too large, up to Undertow's own 2 MiB limit, whose
            // failure would be the answer; send() closes the connection instead when the body is not read to its end.
            body = ex.getInputStream().readNBytes(MAX_BODY + 1);
        } catch (IOException e) {
            throw new HttpError(400, "cannot read the request body: " + e.getMessage());
        }
        if (body.length > MAX_BODY) {
            throw new HttpError(413, "the request body is larger than " + MAX_BODY + " bytes");
        }
        if (body.length == 0) {
            throw new HttpError(400, "the request body is empty; expected a JSON object");
        }
        if (JsonWire.notUtf8(body, body.length)) {
            throw new HttpError(400, "the request body is not UTF-8 JSON (it looks like UTF-16 or UTF-32); send UTF-8");
        }
        String utf8 = JsonWire.utf8Problem(body, body.length);
        if (utf8 != null) {
            throw new HttpError(400, "the request body is not UTF-8 JSON: " + utf8);
        }
        try {
            T value = MAPPER.readValue(body, type);
            if (value == null) {
                throw new HttpError(400, "expected a JSON object, got null");
            }
            return value;
        } catch (UnrecognizedPropertyException e) {
            throw new HttpError(400, "unknown field '" + e.getPropertyName() + "'; known fields: "
                    + e.getKnownPropertyIds());
        } catch (MismatchedInputException e) {
            throw new HttpError(400, wrongType(e));
        } catch (JsonProcessingException e) {
            // The selector's rule too: Jackson's text names its input source and switches, the client needs positions.
            throw new HttpError(400, JsonWire.malformed(e.getOriginalMessage(),
                    e.getLocation() == null ? 0 : e.getLocation().getLineNr(),
                    e.getLocation() == null ? 0 : e.getLocation().getColumnNr()));
        } catch (CharConversionException e) {
            // Jackson guesses UTF-16/32 from the first bytes and fails on a body that is neither: a client error.
            throw new HttpError(400, "the request body is not UTF-8 JSON: " + e.getMessage());
        } catch (IOException e) {
            throw new HttpError(400, "cannot read the request body: " + e.getMessage());
        }
    }
}
