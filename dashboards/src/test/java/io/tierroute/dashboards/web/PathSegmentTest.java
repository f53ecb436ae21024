package io.tierroute.dashboards.web;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Scope names through encode and decode: every name comes back; a bad escape is a 400, whatever parser let it in. */
class PathSegmentTest {

    @Test
    void everyNameRoundTripsAndEncodesAsEncodeUriComponentDoes() {
        for (String name : new String[] {"default", "a/b c%", "a%2Fb", "ünï;x+y", "tab\there", "日本/😀", "%", "-_.!~*'()"}) {
            String encoded = PathSegment.encode(name);
            assertThat(encoded).as(name).matches("[A-Za-z0-9%\\-_.!~*'()]*");
            assertThat(PathSegment.decode(encoded, "the scope")).isEqualTo(name);
        }
        assertThat(PathSegment.encode("a/b c%")).isEqualTo("a%2Fb%20c%25");
        assertThat(PathSegment.encode("ü")).isEqualTo("%C3%BC");
        assertThat(PathSegment.decode("a+b%2fc", "the scope")).as("'+' is a plus in a path; hex in either case")
                .isEqualTo("a+b/c");
    }

    @Test
    void aBadEscapeIsA400() {
        for (String raw : new String[] {"%zz", "a%2", "%", "%G0"}) {
            assertThatThrownBy(() -> PathSegment.decode(raw, "the scope")).as(raw).isInstanceOfSatisfying(HttpError.class,
                    e -> {
                        assertThat(e.status).isEqualTo(400);
                        assertThat(e.getMessage()).startsWith("the scope in the path is not valid percent-encoding")
                                .contains("encodeURIComponent");
                    });
        }
        assertThatThrownBy(() -> PathSegment.decode("%C3%28", "the scope")).isInstanceOfSatisfying(HttpError.class,
                e -> assertThat(e.status).isEqualTo(400));
    }
}
