package io.tierroute.dashboards.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.dashboards.Broker;
import io.tierroute.dashboards.Dashboard;
import io.tierroute.dashboards.DashboardFixture;
import io.tierroute.dashboards.Snapshots;
import io.tierroute.schemas.avro.SnapshotControl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The audit actor of pin / unpin / rollback is the operator the token belongs to, over real HTTP
 * against a real broker: alice's token (the environment token, named) and bob's (from an operator
 * tokens file) each record their own name, and a body claiming another name is refused with nothing written.
 */
class OperatorIdentityTest {

    private static final String ALICE = "alice-" + UUID.randomUUID();
    private static final String BOB = "bob-" + UUID.randomUUID();
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    final DashboardFixture fixture = DashboardFixture.seededWith(Snapshots.accepted("default", 1),
            Snapshots.accepted("default", 2), Snapshots.accepted("default", 3));
    @TempDir
    Path dir;
    private final HttpClient http = HttpClient.newHttpClient();
    private Dashboard dashboard;

    static String sha256Hex(String token) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(token.getBytes(StandardCharsets.UTF_8)));
    }

    private Dashboard.Settings aliceAndBob() throws Exception {
        Path file = dir.resolve("operators");
        Files.writeString(file, "# who holds which token\nbob sha256:" + sha256Hex(BOB) + "\n");
        return new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", 0, ALICE, "TEST_TOKEN", "default")
                .withOperators("alice", OperatorTokensFile.load(file));
    }

    private void start(Dashboard.Settings s) throws Exception {
        dashboard = fixture.startDashboard(s);
    }

    private HttpResponse<String> post(String action, String token, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(dashboard.uri().resolve("api/v1/scopes/default/" + action))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode versions() throws Exception {
        return JSON.readTree(http.send(HttpRequest.newBuilder(dashboard.uri().resolve("api/v1/scopes/default/versions"))
                .build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    @Test
    void aForgedActorIsRefusedAndNothingIsWritten() throws Exception {
        start(aliceAndBob());
        for (String action : new String[] {"rollback", "unpin", "pin"}) {
            String body = action.equals("pin") ? "{\"version\": 1, \"actor\": \"mallory\", \"reason\": \"r\"}"
                    : "{\"actor\": \"mallory\", \"reason\": \"r\"}";
            HttpResponse<String> r = post(action, ALICE, body);
            assertThat(r.statusCode()).as(action + ": " + r.body()).isEqualTo(403);
            assertThat(JSON.readTree(r.body()).get("error").asText()).as(action)
                    .contains("'actor'").contains("'alice'").doesNotContain(ALICE);
        }
        HttpResponse<String> r = post("rollback", BOB, "{\"actor\": \"alice\", \"reason\": \"r\"}");
        assertThat(r.statusCode()).as("bob may not write as alice").isEqualTo(403);
        assertThat(Broker.controlRecords()).as("nothing reached the control topic").isEmpty();
        assertThat(versions().get("pinned").asBoolean()).isFalse();
    }

    @Test
    void eachTokenRecordsItsOwnOperator() throws Exception {
        start(aliceAndBob());
        HttpResponse<String> r = post("rollback", ALICE, "{\"reason\": \"alphaD drifted\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).get("actor").asText()).isEqualTo("alice");

        r = post("pin", BOB, "{\"version\": 1, \"actor\": \"bob\", \"reason\": \"further back\"}");
        assertThat(r.statusCode()).as("a body naming the token's own operator is accepted: " + r.body()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).get("actor").asText()).isEqualTo("bob");

        r = post("unpin", ALICE, "{\"actor\": \" alice \", \"reason\": \"fixed\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);

        assertThat(Broker.controlRecords()).extracting(SnapshotControl::getActor)
                .containsExactly("alice", "bob", "alice");
        JsonNode controls = versions().get("controls");
        assertThat(controls.get(0).get("actor").asText()).isEqualTo("alice");
        assertThat(controls.get(1).get("actor").asText()).isEqualTo("bob");
    }

    @Test
    void aTokenWithoutANameActsAsOperator() throws Exception {
        start(new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", 0, ALICE, "TEST_TOKEN", "default"));
        HttpResponse<String> r = post("rollback", ALICE, "{\"actor\": \"mallory\", \"reason\": \"r\"}");
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(JSON.readTree(r.body()).get("error").asText()).contains("'" + OperatorTokens.DEFAULT_NAME + "'");
        r = post("rollback", ALICE, "{\"reason\": \"r\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(Broker.controlRecords()).extracting(SnapshotControl::getActor)
                .containsExactly(OperatorTokens.DEFAULT_NAME);
    }

    @Test
    void onlyNamedOperatorsFromAFileCanWrite() throws Exception {
        Path file = dir.resolve("operators");
        Files.writeString(file, "bob sha256:" + sha256Hex(BOB) + "\n");
        start(new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", 0, null, "TEST_TOKEN", "default")
                .withOperators(null, OperatorTokensFile.load(file)));
        assertThat(post("rollback", ALICE, "{\"reason\": \"r\"}").statusCode()).as("a token no operator holds")
                .isEqualTo(401);
        HttpResponse<String> r = post("rollback", BOB, "{\"reason\": \"r\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(Broker.controlRecords()).extracting(SnapshotControl::getActor).containsExactly("bob");
    }

    @Test
    void aNamedOperatorsTokenOpensClosedReads() throws Exception {
        start(aliceAndBob().withClosedReads("rd-" + UUID.randomUUID(), "TEST_READ_TOKEN"));
        for (String token : new String[] {ALICE, BOB}) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(dashboard.uri().resolve("api/v1/status"))
                    .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(dashboard.uri().resolve("api/v1/status"))
                .header("Authorization", "Bearer " + sha256Hex(BOB)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("the digest in the file is not a credential").isEqualTo(401);
    }

    /** A read token that is an operator's (the env token, or one from the file) would let every reader write. */
    @Test
    void aReadTokenThatIsAnOperatorsTokenStopsTheStart() throws Exception {
        // Each operator with where it is configured: the environment variable, or the file and its line.
        for (String[] shared : new String[][] {{ALICE, "alice", "the token in TEST_TOKEN"},
                {BOB, "bob", "operator tokens file " + dir.resolve("operators") + " line 2"}}) {
            assertThatThrownBy(() -> Dashboard.start(aliceAndBob().withClosedReads(shared[0], "TEST_READ_TOKEN")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("the read token (TEST_READ_TOKEN) is also the token of operator '" + shared[1]
                            + "' (" + shared[2] + "): every reader could pin, unpin and roll back; give the readers a "
                            + "token of their own");
        }
    }

    @Test
    void aBadOperatorConfigurationStopsTheStart() throws Exception {
        Path file = dir.resolve("operators");
        Files.writeString(file, "alice sha256:" + sha256Hex(BOB) + "\n");
        Dashboard.Settings base = new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", 0, ALICE, "TEST_TOKEN",
                "default");
        // Both places named: the environment token's variable, and the file with its line.
        assertThatThrownBy(() -> Dashboard.start(base.withOperators("alice", OperatorTokensFile.load(file))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("operator 'alice' is configured twice (the "
                        + "token in TEST_TOKEN and operator tokens file " + file + " line 1)");
        Files.writeString(file, "# operators\nbob sha256:" + sha256Hex(ALICE) + "\n");
        assertThatThrownBy(() -> Dashboard.start(base.withOperators("alice", OperatorTokensFile.load(file))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("operators 'alice' and 'bob' have the same "
                        + "token (the token in TEST_TOKEN and operator tokens file " + file + " line 2): each token "
                        + "must name one operator")
                .hasMessageNotContaining(ALICE);
        assertThatThrownBy(() -> Dashboard.start(base.withOperators("two words", OperatorTokens.none())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("operator name");
    }

    /**
     * A token with whitespace around it, or of whitespace only, would turn the writes on yet match no token a client can
     * send: refused, naming where it came from, never the token. (The CLI strips it before, with a warning.)
     */
    @Test
    void aTokenWithWhitespaceAroundItStopsTheStart() {
        assertThatThrownBy(() -> Dashboard.start(new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", 0, ALICE + "\n",
                "TEST_TOKEN", "default"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the token from TEST_TOKEN has whitespace around it: strip it (no client can send it as it is)");
        assertThatThrownBy(() -> Dashboard.start(new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", 0, " \n",
                "TEST_TOKEN", "default"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TEST_TOKEN is only whitespace");
        assertThatThrownBy(() -> Dashboard.start(new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", 0, ALICE,
                "TEST_TOKEN", "default").withClosedReads(BOB + " ", "TEST_READ_TOKEN")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TEST_READ_TOKEN has whitespace")
                .hasMessageNotContaining(BOB);
    }
}
