package io.tierroute.deploy.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.deploy.local.FlinkRestClient.FlinkRestException;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The HTTP side of {@link FlinkRestClient}: the checked base address, the JDK client and its timeouts, and turning an
 * exchange into a JSON answer or a {@link FlinkRestException} that says which call failed: a refused connection (with
 * the caller's hint), a host name that does not resolve, a body that is not JSON, or an HTTP error carrying Flink's
 * {@code errors} reduced to one line ({@link FlinkErrorText#rootCause}). The calls themselves live in the other
 * package-private pieces, which all share one transport per client.
 */
final class FlinkRestTransport {

    static final ObjectMapper JSON = new ObjectMapper();

    private final URI base;
    private final HttpClient http;
    private final Duration timeout;
    private final String unreachableHint;

    FlinkRestTransport(URI base, Duration timeout, String unreachableHint) {
        // Exactly http or https, in any case (httpx:// passed a prefix check, then failed in the HTTP client), with a host.
        String scheme = base == null || base.getScheme() == null ? "" : base.getScheme().toLowerCase(java.util.Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || base.getHost() == null) {
            throw new IllegalArgumentException(notAnAddress(String.valueOf(base)));
        }
        if (base.getPort() == 0 || base.getPort() > 65_535) { // -1: none given, the scheme's
            throw new IllegalArgumentException("the Flink REST address's port must be in [1, 65535], got " + base.getPort());
        }
        if (base.getRawQuery() != null || base.getRawFragment() != null) {
            throw new IllegalArgumentException("the Flink REST address must be http://HOST:PORT[/PATH], without a query or "
                    + "fragment, got " + base);
        }
        String s = scheme + base.toString().substring(scheme.length()); // HTTP://h: the same address, said as Flink's
        this.base = URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s);
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
        this.unreachableHint = unreachableHint;
    }

    /** The refusal of {@code given} as a Flink REST address: one line, with an example. */
    static String notAnAddress(String given) {
        return "the Flink REST address must be http://HOST:PORT or https://HOST:PORT, e.g. http://HOST:8081, got " + given;
    }

    URI base() {
        return base;
    }

    Duration timeout() {
        return timeout;
    }

    /** "cannot reach the Flink cluster at URL (WHAT): connection refused[; HINT]". */
    static String refusedMessage(URI base, String what, String hint) {
        return "cannot reach the Flink cluster at " + base + " (" + what + "): connection refused"
                + (hint.isEmpty() ? "" : "; " + hint);
    }

    /**
     * {@code path} (from "/") under the base, keeping the base's own path: a Flink behind a proxy at
     * {@code http://gw/flink} is asked {@code http://gw/flink/jobs}, where {@code URI.resolve} would ask {@code http://gw/jobs}.
     */
    URI at(String path) {
        return URI.create(base + path);
    }

    /**
     * The JDK client's words for a peer that accepted the connection and closed it without a byte of answer: what a
     * port of another protocol (Kafka's) does with an HTTP request.
     */
    private static boolean closedWithoutAnswer(IOException e) {
        return String.valueOf(e.getMessage()).contains("header parser received no bytes");
    }

    JsonNode get(String path) {
        return send(HttpRequest.newBuilder(at(path)).timeout(timeout).GET().build(), "GET " + path);
    }

    JsonNode post(String path, JsonNode body, String what) {
        HttpRequest req = HttpRequest.newBuilder(at(path)).timeout(timeout.plusSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
        return send(req, what);
    }

    /** Whether the host name did not resolve: the JDK's client says so only deep in a ConnectException's causes. */
    private static boolean unresolved(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UnresolvedAddressException) {
                return true;
            }
        }
        return false;
    }

    JsonNode send(HttpRequest req, String what) {
        HttpResponse<String> resp;
        try {
            resp = http.send(req, HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            if (unresolved(e)) {
                throw new FlinkRestException("cannot reach the Flink cluster at " + base + " (" + what + "): the host name "
                        + base.getHost() + " does not resolve", e);
            }
            throw new FlinkRestException(refusedMessage(base, what, unreachableHint), e);
        } catch (IOException e) { // sent, or maybe sent: a connect timeout is the one failure that sent nothing
            throw new FlinkRestException("cannot reach the Flink cluster at " + base + " (" + what + "): "
                    + (closedWithoutAnswer(e) ? "the server there closed the connection without an HTTP answer ("
                    + e.getMessage() + "): not an HTTP port (another service's, such as Kafka's: Flink's REST port is "
                    + "8081 by default), a TLS port given as http://, or a proxy without a live JobManager behind it"
                    : e.toString()),
                    e, !(e instanceof java.net.http.HttpConnectTimeoutException), -1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FlinkRestException("interrupted: " + what, e);
        }
        JsonNode n;
        try {
            n = resp.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(resp.body());
        } catch (IOException e) {
            throw new FlinkRestException(what + ": " + base + " answered HTTP " + resp.statusCode()
                    + " with a body that is not JSON; is this a Flink REST endpoint?", e, false, resp.statusCode());
        }
        if (resp.statusCode() >= 300) {
            List<String> errors = new ArrayList<>();
            n.path("errors").forEach(e -> errors.add(e.asText()));
            throw new FlinkRestException(what + " failed: HTTP " + resp.statusCode() + " from " + base
                    + (errors.isEmpty() ? "" : ": " + FlinkErrorText.rootCause(errors)), null, false, resp.statusCode());
        }
        return n;
    }

    /** Waits between two polls of a call (a job starting, a savepoint completing). */
    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FlinkRestException("interrupted", e);
        }
    }
}
