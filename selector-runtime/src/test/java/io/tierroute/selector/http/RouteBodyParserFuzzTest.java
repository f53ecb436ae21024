package io.tierroute.selector.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.CharConversionException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Differential fuzzing of the route body's fast path against the strict Jackson reader, its oracle:
 * whenever {@link RouteBodyParser} accepts a body, Jackson must accept it too and read the same
 * fields; when Jackson rejects a body it does so with a {@link JsonProcessingException} or, for a body
 * that is not UTF-8 at all, a {@link CharConversionException} (both a 400 with the message), never
 * another exception.
 */
class RouteBodyParserFuzzTest {

    private static final String[] SEEDS = {
        "{\"request_id\":\"r1\",\"model\":\"m\",\"token_ids\":[1,2,3,4],\"max_tokens\":128}",
        "{\"block_hashes\":[-1,2,9223372036854775807],\"input_tokens\":48,\"explain\":true}",
        "{\"text\":\"hello\",\"lora\":null,\"namespace\":\"ns\",\"expected_output_tokens\":7}",
        "{\"token_ids\":[],\"agent\":{\"workflow_id\":\"wf\",\"step_id\":\"s\",\"expected_next_tools\":[\"a\"]}}",
    };

    @FuzzTest(maxExecutions = 20_000)
    void fastPathAgreesWithJackson(FuzzedDataProvider data) throws IOException {
        byte[] body = data.consumeBoolean()
                ? FuzzInputs.mutate(SEEDS[data.consumeInt(0, SEEDS.length - 1)].getBytes(StandardCharsets.UTF_8), data)
                : data.consumeRemainingAsBytes();
        Bodies.Route fast = RouteBodyParser.tryParse(body);
        Bodies.Route strict;
        try {
            strict = Endpoints.ROUTE.readValue(body);
        } catch (JsonProcessingException | CharConversionException e) {
            // Rejected with a message the server returns as a 400 (the second kind: not UTF-8 at all).
            assertThat(fast).as("the fast path accepted a body Jackson rejects: %s", e.getMessage()).isNull();
            return;
        }
        if (fast != null) {
            assertThat(fast).usingRecursiveComparison().isEqualTo(strict);
        }
    }
}
