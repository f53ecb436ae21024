package io.tierroute.selector.server;

import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.SelectorConfig;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A token variable with whitespace around it (a mounted secret's trailing newline): the selector strips it and says
 * so once, naming the variable and never the value, so the admin calls work with the token an operator sends; a
 * variable holding only whitespace is no token, as an unset one is (before: the newline was part of the token and
 * every admin call was refused as "wrong").
 */
class TokenWhitespaceTest {

    private static final String TOKEN = "adm-7f3e9c";

    private final HttpClient client = HttpClient.newHttpClient();

    /** The selector started with {@code env}, its admin drain of w0 with the token, and the log of both. */
    private String[] drainWith(Map<String, String> env) throws Exception {
        SelectorConfig c = ConfigLoader.parse("workers: {count: 2}\naccess: {read: token}\n", Path.of("."));
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        HttpResponse<String> drain;
        HttpResponse<String> read;
        try (SelectorServer s = SelectorServer.startWith(c.withServer(c.server().withPort(0)), env::get, false)) {
            drain = client.send(HttpRequest.newBuilder(s.uri().resolve("/v1/workers/w0/drain"))
                    .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            read = client.send(HttpRequest.newBuilder(s.uri().resolve("/v1/workers"))
                    .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        } finally {
            System.setErr(err);
        }
        return new String[] {drain.statusCode() + " " + drain.body(), read.statusCode() + " " + read.body(),
                captured.toString(StandardCharsets.UTF_8)};
    }

    @Test
    void aTrailingNewlineIsStrippedWithOneWarningThatNamesTheVariableNotTheValue() throws Exception {
        String[] r = drainWith(Map.of("TIERROUTE_ADMIN_TOKEN", TOKEN + "\n", "TIERROUTE_READ_TOKEN", " " + TOKEN + "\t"));
        assertThat(r[0]).as("the admin call with the token as sent").startsWith("200 ");
        assertThat(r[1]).as("the read token, stripped too").startsWith("200 ");
        assertThat(r[2]).containsOnlyOnce("TIERROUTE_ADMIN_TOKEN has whitespace around its token")
                .containsOnlyOnce("TIERROUTE_READ_TOKEN has whitespace around its token").contains("WARN")
                .doesNotContain(TOKEN);
    }

    @Test
    void aVariableOfWhitespaceOnlyIsNoTokenAsAnUnsetOneIs() throws Exception {
        String[] r = drainWith(Map.of("TIERROUTE_ADMIN_TOKEN", " \n", "TIERROUTE_READ_TOKEN", TOKEN));
        String[] unset = drainWith(Map.of("TIERROUTE_READ_TOKEN", TOKEN));
        assertThat(r[0]).startsWith("403 ").contains("admin endpoints are disabled").contains("TIERROUTE_ADMIN_TOKEN")
                .isEqualTo(unset[0]);
        assertThat(r[2]).containsOnlyOnce("TIERROUTE_ADMIN_TOKEN holds only whitespace: no token, treated as unset");
        assertThat(unset[2]).doesNotContain("TIERROUTE_ADMIN_TOKEN");
    }

    @Test
    void valueStripsAndTellsNoTokenFromOne() {
        assertThat(TokenVariable.value(null)).isNull();
        assertThat(TokenVariable.value("")).isNull();
        assertThat(TokenVariable.value(" \r\n\t")).isNull();
        assertThat(TokenVariable.value("abc\n")).isEqualTo("abc");
        assertThat(TokenVariable.value("a b")).as("inner whitespace is the token's").isEqualTo("a b");
    }
}
