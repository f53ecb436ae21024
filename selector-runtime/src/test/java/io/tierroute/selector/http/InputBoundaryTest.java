package io.tierroute.selector.http;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Inputs an API review found read as something the client did not send (each answered 200 or 202 before): a query
 * parameter without a name, a credential given twice, bytes that are not UTF-8, a NUL, ids with control characters or
 * nothing visible; and errors that quoted a client's megabytes back.
 */
class InputBoundaryTest {

    @TempDir
    static Path dir;
    static ApiTestServer api;

    @BeforeAll
    static void start() throws Exception {
        api = ApiTestServer.fourWorkers(dir);
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    @Test
    void aQueryParameterWithoutANameIsRefusedAndAGapInTheQueryIsNot() throws Exception {
        HttpResponse<String> r = api.post("/v1/route?=true", "{\"text\":\"zz\",\"request_id\":\"q-empty-name\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(r.body()).contains("unknown query parameter without a name ('=true') on POST /v1/route");
        HttpResponse<String> drain = api.post("/v1/workers/w3/drain?=true", "", "Authorization",
                "Bearer " + ApiTestServer.TOKEN);
        assertThat(drain.statusCode()).as(drain.body()).isEqualTo(400);
        assertThat(api.post("/v1/kv-events?=x", "{\"worker\":\"w0\",\"events\":[{\"type\":\"cleared\"}]}").statusCode())
                .isEqualTo(400);
        for (int i = 0; i < 2; i++) { // a dry run admits nothing: the same id again is no "already in flight"
            HttpResponse<String> gap = api.post("/v1/route?&dry_run", "{\"text\":\"zz\",\"request_id\":\"gap-1\"}");
            assertThat(gap.statusCode()).as(gap.body()).isEqualTo(200);
        }
    }

    @Test
    void anAuthorizationHeaderGivenTwiceIsRefusedWhicheverComesFirst() throws Exception {
        for (String[] pair : new String[][] {{ApiTestServer.TOKEN, "nope"}, {"nope", ApiTestServer.TOKEN}}) {
            HttpResponse<String> r = api.post("/v1/workers/w3/undrain", "", "Authorization", "Bearer " + pair[0],
                    "Authorization", "Bearer " + pair[1]);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
            assertThat(r.body()).contains("the Authorization header is given 2 times; give it once");
        }
    }

    @Test
    void bodiesThatAreNotWellFormedUtf8OrHoldANulAreRefused() throws Exception {
        byte[][] bodies = {
            bytes("{\"worker\":\"w", 0xc0, 0xb0, "\",\"events\":[{\"type\":\"cleared\"}]}"), // overlong '0': w0
            bytes("{\"text\":\"a\",\"request_id\":\"", 0xf4, 0x90, 0x80, 0x80, "\"}"),        // past U+10FFFF
            bytes("{\"text\":\"", 0xed, 0xa0, 0x80, "\"}"),                                    // a surrogate
            bytes("{\"text\":\"a\"}", 0x00, "garbage"),                                        // read to the NUL only
        };
        String[] paths = {"/v1/kv-events", "/v1/route?dry_run", "/v1/route?dry_run", "/v1/route?dry_run"};
        for (int i = 0; i < bodies.length; i++) {
            HttpResponse<String> r = api.send(HttpRequest.newBuilder(api.uri(paths[i]))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(bodies[i])));
            assertThat(r.statusCode()).as(i + ": " + r.body()).isEqualTo(400);
            assertThat(r.body()).as(Integer.toString(i)).contains("the request body is not UTF-8 JSON: ");
        }
    }

    @Test
    void idsWithControlCharactersLoneSurrogatesOrNothingVisibleAreRefused() throws Exception {
        String[][] cases = {
            {"a\\u0000b", "no control characters, got U+0000 at index 1"},
            {"a\\nb", "no control characters, got U+000A at index 1"},
            {"\\ud800x", "a lone surrogate U+D800 at index 0 is no character"},
            {"\\u00a0", "must not be empty"},
            {"\\u200b", "must not be empty"},
        };
        for (String[] c : cases) {
            HttpResponse<String> r = api.post("/v1/route?dry_run", "{\"text\":\"a\",\"request_id\":\"" + c[0] + "\"}");
            assertThat(r.statusCode()).as(c[0] + ": " + r.body()).isEqualTo(400);
            assertThat(r.body()).as(c[0]).contains("field 'request_id': " + c[1]);
        }
        HttpResponse<String> emoji = api.post("/v1/route?dry_run", "{\"text\":\"a\",\"request_id\":\"r-\\ud83d\\ude00\"}");
        assertThat(emoji.statusCode()).as("a pair is a character: " + emoji.body()).isEqualTo(200);
        HttpResponse<String> long_ = api.post("/v1/requests/events",
                "{\"request_id\":\"" + "r".repeat(300) + "\",\"type\":\"failed\"}");
        assertThat(long_.statusCode()).as("no route admits such an id: " + long_.body()).isEqualTo(400);
        assertThat(long_.body()).contains("field 'request_id': at most 256 characters, got 300");
    }

    @Test
    void anErrorQuotesAtMostAKilobyteOfWhatTheClientSent() throws Exception {
        String worker = "w".repeat(60_000);
        HttpResponse<String> r = api.post("/v1/kv-events", "{\"worker\":\"" + worker + "\",\"events\":[{\"type\":\"cleared\"}]}");
        assertThat(r.statusCode()).isBetween(400, 404);
        String error = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body()).get("error").asText();
        assertThat(error.length()).isLessThanOrEqualTo(ApiError.MAX_MESSAGE_LENGTH);
        int whole = Integer.parseInt(error.replaceFirst("(?s).*\\.\\.\\. \\((\\d+) characters in all\\)$", "$1"));
        assertThat(whole).as("the message's own length, counted once").isGreaterThan(worker.length());
        assertThat(ApiError.bounded(error)).as("bounding twice changes nothing").isEqualTo(error);
    }

    @Test
    void agentHeadersAreReadAsUtf8AndBytesThatAreNotUtf8AreRefused() throws Exception {
        String body = "{\"text\":\"a\",\"request_id\":\"hdr-1\",\"agent\":{\"workflow_id\":\"w\u00f6rk\"}}";
        String same = raw(bytes("POST /v1/route?dry_run HTTP/1.1\r\nHost: s\r\nConnection: close\r\n"
                + "x-agent-workflow-id: w", 0xc3, 0xb6, "rk\r\nContent-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body));
        assertThat(same).as("the header's UTF-8 bytes are the body's id").startsWith("HTTP/1.1 200 ");
        String noBody = "{\"text\":\"a\",\"request_id\":\"hdr-2\"}";
        String latin1 = raw(bytes("POST /v1/route?dry_run HTTP/1.1\r\nHost: s\r\nConnection: close\r\n"
                + "x-agent-workflow-id: w", 0xf6, "rk\r\nx-agent-expected-tools: ok\r\nContent-Length: " + noBody.length()
                + "\r\n\r\n" + noBody));
        assertThat(latin1).startsWith("HTTP/1.1 400 ");
        assertThat(latin1).contains("header x-agent-workflow-id is not UTF-8 text: byte 0xF6 at offset 1 is not UTF-8");
        String tools = raw(bytes("POST /v1/route?dry_run HTTP/1.1\r\nHost: s\r\nConnection: close\r\n"
                + "x-agent-expected-tools: grep, ", 0xed, 0xa0, 0x80, "\r\nContent-Length: " + noBody.length()
                + "\r\n\r\n" + noBody));
        assertThat(tools).startsWith("HTTP/1.1 400 ");
        assertThat(tools).contains("header x-agent-expected-tools is not UTF-8 text: the bytes at offset 6 are not "
                + "well-formed UTF-8");
    }

    /** Sends {@code request} as it is on a fresh connection; the whole answer, read until the server closes. */
    private static String raw(byte[] request) throws Exception {
        try (java.net.Socket socket = new java.net.Socket(api.uri("/").getHost(), api.uri("/").getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request);
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static byte[] bytes(Object... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (Object p : parts) {
            if (p instanceof String s) {
                out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
            } else {
                out.write((Integer) p);
            }
        }
        return out.toByteArray();
    }
}
