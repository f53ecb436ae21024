package io.tierroute.selector.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The fast route-body parser agrees with the strict Jackson reader wherever it does not defer to it. */
class RouteBodyParserTest {

    private static Bodies.Route jackson(String body) {
        try {
            return Endpoints.ROUTE.readValue(body.getBytes(StandardCharsets.UTF_8));
        } catch (JsonProcessingException e) {
            return null;
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    private static void same(String body) {
        Bodies.Route fast = RouteBodyParser.tryParse(body.getBytes(StandardCharsets.UTF_8));
        Bodies.Route slow = jackson(body);
        if (fast == null) {
            return; // deferred to Jackson: always allowed
        }
        assertThat(slow).as("Jackson rejects what the fast path accepted: %s", body).isNotNull();
        assertThat(fast).usingRecursiveComparison().as(body).isEqualTo(slow);
    }

    @Test
    void commonShapesTakeTheFastPath() {
        String body = "{\"request_id\":\"r-1\",\"block_hashes\":[1,-2,9223372036854775,0],\"input_tokens\":64,"
                + "\"max_tokens\":32,\"explain\":true,\"model\":null}";
        assertThat(RouteBodyParser.tryParse(body.getBytes(StandardCharsets.UTF_8))).isNotNull();
        same(body);
        same(" { \"token_ids\" : [ 1 , 2 ,3 ] , \"text\" : null }\n");
        same("{}");
        same("{\"text\":\"hello world\",\"explain\":false,\"expected_output_tokens\":0}");
    }

    @Test
    void unusualOrBadInputDefersToJackson() {
        for (String body : new String[] {
                "{\"text\":\"caf\u00e9\"}", "{\"text\":\"a\\nb\"}", "{\"agent\":{\"workflow_id\":\"w\"}}",
                "{\"block_hashes\":[\"0x1f\"],\"input_tokens\":16}", "{\"max_tokens\":01}", "{\"max_tokens\":-0}",
                "{\"max_tokens\":1.0}", "{\"max_tokens\":1e3}", "{\"max_tokens\":99999999999}",
                "{\"block_hashes\":[12345678901234567890]}", "{\"text\":\"a\",\"text\":\"b\"}", "{\"bogus\":1}",
                "{\"text\":\"a\"} x", "{\"text\":\"a\",}", "[1]", "", "{", "{\"explain\":tru}", "{\"token_ids\":[1,]}"}) {
            assertThat(RouteBodyParser.tryParse(body.getBytes(StandardCharsets.UTF_8))).as(body).isNull();
        }
    }

    @Test
    void readsOnlyTheGivenLengthOfAReusedBuffer() {
        byte[] buf = "{\"text\":\"a\"}{\"text\":\"stale\"}".getBytes(StandardCharsets.US_ASCII);
        assertThat(RouteBodyParser.tryParse(buf, 12).text).isEqualTo("a");
        byte[] stale = "{\"text\":\"abc\"}".getBytes(StandardCharsets.US_ASCII);
        for (int len = 0; len < stale.length; len++) {
            assertThat(RouteBodyParser.tryParse(stale, len)).as("prefix of %d bytes", len).isNull();
        }
    }

    @Test
    void randomBodiesAgreeWithJackson() {
        long seed = System.nanoTime();
        SplittableRandom rnd = new SplittableRandom(seed);
        String[] fields = {"request_id", "model", "lora", "namespace", "text", "input_tokens", "max_tokens",
                "expected_output_tokens", "block_hashes", "token_ids", "explain"};
        String[] atoms = {"0", "1", "-1", "42", "2147483647", "2147483648", "-2147483648", "9223372036854775807",
                "1.5", "1e2", "01", "true", "false", "null", "\"x\"", "\"\"", "\"a b\"", "[]", "[1]", "[1,2,3]",
                "[-5, 7 ,8]", "[1.0]", "[null]", "{}", "[2147483648]"};
        for (int n = 0; n < 5_000; n++) {
            StringBuilder sb = new StringBuilder("{");
            int k = rnd.nextInt(5);
            List<String> used = new ArrayList<>();
            for (int j = 0; j < k; j++) {
                String f = fields[rnd.nextInt(fields.length)];
                if (rnd.nextInt(10) > 0 && used.contains(f)) {
                    continue;
                }
                used.add(f);
                if (sb.length() > 1) sb.append(rnd.nextBoolean() ? "," : ", ");
                sb.append('"').append(f).append("\":").append(rnd.nextBoolean() ? "" : " ")
                        .append(atoms[rnd.nextInt(atoms.length)]);
            }
            sb.append('}');
            String body = sb.toString();
            try {
                same(body);
            } catch (AssertionError e) {
                throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
            }
        }
    }
}
