package io.tierroute.selector.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.SelectorConfig;
import io.tierroute.selector.scheduling.WorkerView;
import io.tierroute.selector.server.SelectorServer;
import io.undertow.util.Methods;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.Field;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every route of the route table against every kind of caller: no token, a wrong one, a lesser one,
 * the right one; with the read views and the data plane open and closed. The lists come from
 * {@link Route#values()}, so a route added tomorrow is tested the same way.
 */
class AccessControlTest {

    private static final String ADMIN = "admin-0f3c9a7d";
    private static final String READ = "read-5b1e2c44";
    private static final String DATA = "data-9d7a6e10";
    private static final Map<String, String> ENV = Map.of("TIERROUTE_ADMIN_TOKEN", ADMIN,
            "TIERROUTE_READ_TOKEN", READ, "TIERROUTE_DATA_TOKEN", DATA);

    @TempDir
    Path dir;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private SelectorServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private SelectorServer start(String access, Map<String, String> env) throws Exception {
        Path params = dir.resolve("params.yaml");
        Files.writeString(params, "version: 1\n");
        SelectorConfig c = ConfigLoader.parse("workers: {count: 2}\nparametersFile: params.yaml\n" + access, dir);
        server = SelectorServer.startWith(c.withServer(c.server().withPort(0)), env::get, false);
        return server;
    }

    private HttpResponse<String> call(Route r, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(server.uri().resolve(r.path("w0"))).timeout(Duration.ofSeconds(10));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (r.method().equals(Methods.GET)) {
            b.GET();
        } else {
            b.method(r.method().toString(), HttpRequest.BodyPublishers.ofString(body(r)))
                    .header("content-type", "application/json");
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A valid body where the route takes one, so that an allowed call really changes something. */
    private static String body(Route r) {
        return switch (r) {
            case ROUTE -> "{\"request_id\":\"r1\",\"text\":\"hello\"}";
            case REQUEST_EVENTS -> "{\"request_id\":\"r1\",\"type\":\"finished\"}";
            case KV_EVENTS -> "{\"worker\":\"w0\",\"events\":[{\"type\":\"cleared\"}]}";
            case TELEMETRY -> "{\"worker\":\"w0\",\"kv_used_tokens\":10}";
            case WORKER_HEALTH -> "{\"healthy\":false}";
            default -> "";
        };
    }

    private static List<Route> routes(Route.Access a) {
        return Arrays.stream(Route.values()).filter(r -> r.access() == a).toList();
    }

    private static void assertRefused(HttpResponse<String> r, int status, String route) throws Exception {
        assertThat(r.statusCode()).as(route + ": " + r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("content-type")).as(route).contains("application/json");
        JsonNode error = Json.MAPPER.readTree(r.body()).get("error");
        assertThat(error).as(route + ": " + r.body()).isNotNull();
        assertThat(error.asText()).as(route).containsAnyOf("token", "Bearer");
        if (status == 401) {
            assertThat(r.headers().firstValue("www-authenticate")).as(route).hasValueSatisfying(v ->
                    assertThat(v).startsWith("Bearer realm="));
        }
    }

    /** 401, and (checked after each call, so a failure names the call) no KV event reached the index. */
    private void refusedAndNothingApplied(Route r, String token, String how) throws Exception {
        assertRefused(call(r, token), 401, r + " " + how);
        assertThat(server.pipeline().awaitIdle(5, TimeUnit.SECONDS)).isTrue();
        assertThat(server.pipeline().appliedEvents()).as("KV events applied after %s %s", r, how).isZero();
    }

    @Test
    void onlyGetRoutesAreOpenToAnonymousCallers() {
        // The premise of the rest: a route that can change state is never PROBE or READ.
        for (Route r : Route.values()) {
            if (!r.method().equals(Methods.GET)) {
                assertThat(r.access()).as(r + " changes state").isIn(Route.Access.ADMIN, Route.Access.DATA);
            }
        }
        assertThat(routes(Route.Access.PROBE)).containsExactly(Route.HEALTHZ);
    }

    @Test
    void everyStateChangingRouteIsRefusedWithoutTheRightToken() throws Exception {
        start("access: {read: token, data: token}\n", ENV);
        Files.writeString(dir.resolve("params.yaml"), "version: 2\n"); // what a reload would activate
        List<Route> changing = Arrays.stream(Route.values()).filter(r -> !r.method().equals(Methods.GET)).toList();
        assertThat(changing).hasSize(8);
        for (Route r : changing) {
            refusedAndNothingApplied(r, null, "without a token");
            refusedAndNothingApplied(r, "wrong-token", "with a wrong token");
            refusedAndNothingApplied(r, ADMIN + "x", "with the admin token and one more character");
            refusedAndNothingApplied(r, ADMIN.substring(1), "with the admin token less a character");
            refusedAndNothingApplied(r, READ, "with the read token");
            if (r.access() == Route.Access.ADMIN) {
                refusedAndNothingApplied(r, DATA, "with the data token");
            }
        }
        // Nothing happened: no worker drained or marked down, no route admitted, no KV event indexed,
        // the parameters not reloaded.
        for (WorkerView w : server.selector().workers()) {
            assertThat(w.draining()).isFalse();
            assertThat(w.healthy()).isTrue();
            assertThat(w.load().inFlight()).isZero();
            assertThat(w.load().kvUsedTokens()).isZero();
        }
        // (The writer's backlog is not read: the 100 ms tick queues an expiry command on it at any moment.)
        assertThat(server.pipeline().awaitIdle(5, TimeUnit.SECONDS)).isTrue();
        assertThat(server.pipeline().appliedEvents()).isZero();
        assertThat(server.parameters().current().version()).isEqualTo(1);

        // The right token is accepted by every one of them (answers vary; none is an access refusal).
        for (Route r : changing) {
            String token = r.access() == Route.Access.DATA ? DATA : ADMIN;
            HttpResponse<String> ok = call(r, token);
            assertThat(ok.statusCode()).as(r + ": " + ok.body()).isNotIn(401, 403, 404, 405, 500);
        }
        assertThat(server.selector().workers().get(0).healthy()).isFalse(); // WORKER_HEALTH ran
        assertThat(server.parameters().current().version()).isEqualTo(2); // PARAMS_RELOAD ran
    }

    @Test
    void adminRoutesAreRefusedOutrightWithoutAConfiguredAdminToken() throws Exception {
        start("", Map.of("TIERROUTE_READ_TOKEN", READ));
        for (Route r : routes(Route.Access.ADMIN)) {
            HttpResponse<String> resp = call(r, "anything");
            assertRefused(resp, 403, r.toString());
            assertThat(resp.body()).contains("no admin token is configured").contains("TIERROUTE_ADMIN_TOKEN");
        }
    }

    @Test
    void closedReadViewsNeedTheReadOrAdminToken() throws Exception {
        start("access: {read: token}\n", ENV);
        for (Route r : routes(Route.Access.READ)) {
            assertRefused(call(r, null), 401, r + " without a token");
            assertRefused(call(r, "wrong"), 401, r + " with a wrong token");
            assertRefused(call(r, DATA), 401, r + " with the data token");
            assertThat(call(r, READ).statusCode()).as(r + " with the read token").isEqualTo(200);
            assertThat(call(r, ADMIN).statusCode()).as(r + " with the admin token").isEqualTo(200);
        }
        for (Route r : routes(Route.Access.PROBE)) {
            assertThat(call(r, null).statusCode()).as(r + " stays open for probes").isEqualTo(200);
        }
        for (Route r : routes(Route.Access.DATA)) {
            assertThat(call(r, null).statusCode()).as(r + " (data plane still open)").isNotIn(401, 403);
        }
    }

    @Test
    void readViewsAndDataPlaneAreOpenByDefault() throws Exception {
        start("", ENV);
        for (Route r : Route.values()) {
            HttpResponse<String> resp = call(r, null);
            if (r.access() == Route.Access.ADMIN) {
                assertRefused(resp, 401, r.toString());
            } else {
                assertThat(resp.statusCode()).as(r + ": " + resp.body()).isNotIn(401, 403, 404, 405, 500);
            }
        }
    }

    @Test
    void aClosedGroupWithNoTokenConfiguredIsRefusedWithTheVariableToSet() throws Exception {
        start("access: {read: token, readTokenEnv: MY_READ_TOKEN}\n", Map.of());
        HttpResponse<String> r = call(Route.WORKERS, "anything");
        assertRefused(r, 403, "workers");
        assertThat(r.body()).contains("MY_READ_TOKEN").contains("access.read: token");
    }

    @Test
    void otherSchemesAndEmptyBearerAreMissingCredentials() throws Exception {
        start("", ENV);
        for (String h : List.of("Basic " + ADMIN, "Bearer", "Bearer    ", ADMIN, "bearer" + ADMIN)) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(server.uri().resolve("/v1/workers/w0/drain"))
                    .header("Authorization", h).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(h).isEqualTo(401);
        }
        HttpResponse<String> lower = client.send(HttpRequest.newBuilder(server.uri().resolve("/v1/workers/w0/drain"))
                .header("Authorization", "bearer " + ADMIN).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(lower.statusCode()).as("the scheme is case-insensitive (RFC 7235)").isEqualTo(200);
    }

    @Test
    void tokensAreKeptOnlyAsFixedLengthDigests() throws Exception {
        AccessControl ac = new AccessControl(io.tierroute.selector.config.AccessSettings.DEFAULTS,
                new Credentials(ADMIN, READ, DATA), "TIERROUTE_ADMIN_TOKEN");
        // No field anywhere in the object graph holds a token or its bytes: only 32-byte digests.
        List<Object> seen = new ArrayList<>();
        walk(ac, seen);
        List<byte[]> digests = seen.stream().filter(o -> o instanceof byte[]).map(o -> (byte[]) o).toList();
        assertThat(digests).hasSize(3).allSatisfy(d -> assertThat(d).hasSize(32));
        for (Object o : seen) {
            for (String t : List.of(ADMIN, READ, DATA)) {
                assertThat(String.valueOf(o)).doesNotContain(t);
                if (o instanceof byte[] b) {
                    assertThat(new String(b, java.nio.charset.StandardCharsets.UTF_8)).doesNotContain(t);
                }
            }
        }
        assertThat(new Credentials(ADMIN, READ, null).toString()).doesNotContain(ADMIN).doesNotContain(READ)
                .isEqualTo("Credentials[admin=set, read=set, data=unset]");
        // Matching: exact only; every wrong candidate costs the same (one SHA-256 of the candidate, one
        // 32-byte MessageDigest.isEqual), whatever its length or the position of its first wrong byte.
        BearerToken t = BearerToken.of(ADMIN);
        assertThat(t.matches(ADMIN)).isTrue();
        for (String wrong : List.of("", "a", ADMIN + " ", " " + ADMIN, ADMIN.toUpperCase(), ADMIN.substring(0, 5),
                "x" + ADMIN.substring(1), ADMIN.substring(0, ADMIN.length() - 1) + "x")) {
            assertThat(t.matches(wrong)).as(wrong).isFalse();
        }
        assertThat(BearerToken.of("")).isNull();
        assertThat(BearerToken.of(null)).isNull();
    }

    private static void walk(Object o, List<Object> seen) throws IllegalAccessException {
        if (o == null || seen.stream().anyMatch(s -> s == o)) {
            return;
        }
        seen.add(o);
        if (o instanceof String || o instanceof byte[] || o instanceof Boolean || o instanceof Enum<?>) {
            return;
        }
        for (Class<?> c = o.getClass(); c != null && c != Object.class && c != Record.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (java.lang.reflect.Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) {
                    continue;
                }
                f.setAccessible(true);
                walk(f.get(o), seen);
            }
        }
    }

    @Test
    void everyRouteInTheTableHasAHandler() throws Exception {
        start("", ENV);
        for (Route r : Route.values()) {
            HttpResponse<String> resp = call(r, r.access() == Route.Access.DATA ? DATA : ADMIN);
            assertThat(resp.statusCode()).as(r + ": " + resp.body()).isNotIn(404, 405, 500);
            assertThat(Route.match(r.path("w1"))).isEqualTo(r);
        }
        assertThat(Route.match("/v1/workers/w0/explode")).isNull();
        assertThat(Route.match("/v1/workers/drain")).isNull();
        assertThat(Route.match("/v1/route/")).isNull();
    }
}
