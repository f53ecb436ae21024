package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.LoopbackPorts;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What {@code submit}'s Ctrl-C hook does in each phase (its body, run here directly, against a real HTTP server on
 * loopback that answers {@code DELETE /jars/ID} as Flink does): the uploaded jar deleted once, and one line saying
 * whether a job may have started.
 */
class SubmitOnCtrlCTest {

    private final List<String> requests = new CopyOnWriteArrayList<>();
    private HttpServer server;
    private FlinkRestClient rest;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", ex -> {
            requests.add(ex.getRequestMethod() + " " + ex.getRequestURI().getPath());
            byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.start();
        rest = new FlinkRestClient(URI.create("http://127.0.0.1:" + server.getAddress().getPort()), Duration.ofSeconds(5));
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void duringTheUploadNothingWasStartedAndNothingIsDeleted() {
        StringWriter err = new StringWriter();
        try (SubmitOnCtrlC hook = new SubmitOnCtrlC(rest, new PrintWriter(err))) {
            hook.onInterrupt();
        }
        assertThat(err.toString().strip()).startsWith("tierroute submit: interrupted during the upload of the job jar: "
                + "nothing was started (an upload that completed as the command stopped leaves the jar in ");
        assertThat(requests).isEmpty();
    }

    /** Hooks run beside the command: once the hook has spoken, no upload is recorded and no run request goes out. */
    @Test
    void afterTheHookBeganTheCommandCanNeitherRecordAnUploadNorRequestARun() {
        StringWriter err = new StringWriter();
        try (SubmitOnCtrlC hook = new SubmitOnCtrlC(rest, new PrintWriter(err))) {
            hook.onInterrupt();
            assertThatThrownBy(() -> hook.uploaded("late.jar")).isInstanceOf(SubmitOnCtrlC.Interrupted.class);
            assertThatThrownBy(hook::runRequested).isInstanceOf(SubmitOnCtrlC.Interrupted.class);
        }
        assertThat(err.toString()).contains("nothing was started");
    }

    @Test
    void afterTheRunRequestAJobMayRunAndTheUploadIsDeleted() {
        StringWriter err = new StringWriter();
        try (SubmitOnCtrlC hook = new SubmitOnCtrlC(rest, new PrintWriter(err))) {
            hook.uploaded("abc_job.jar");
            hook.runRequested();
            hook.onInterrupt();
            assertThat(hook.deleteJar(rest)).as("the command's own delete, after the hook's").isNull();
        }
        assertThat(err.toString().strip()).isEqualTo("tierroute submit: interrupted after the run request was sent: a job "
                + "may be running; check with 'tierroute cluster status' or the Flink UI at " + rest.base()
                + "; the uploaded jar abc_job.jar is deleted from the cluster");
        assertThat(requests).containsExactly("DELETE /jars/abc_job.jar");
    }

    @Test
    void afterTheUploadBeforeTheRunNothingWasStartedAndAStartedJobIsNamed() {
        StringWriter err = new StringWriter();
        try (SubmitOnCtrlC hook = new SubmitOnCtrlC(rest, new PrintWriter(err))) {
            hook.uploaded("j1.jar");
            hook.onInterrupt();
        }
        assertThat(err.toString()).contains("interrupted after the upload, before the run request: nothing was started; "
                + "the uploaded jar j1.jar is deleted");
        StringWriter err2 = new StringWriter();
        try (SubmitOnCtrlC hook = new SubmitOnCtrlC(rest, new PrintWriter(err2))) {
            hook.uploaded("j2.jar");
            hook.runRequested();
            hook.started("0123abcd");
            assertThat(hook.deleteJar(rest)).isNull(); // the command deleted it: the hook does not again
            hook.onInterrupt();
        }
        assertThat(err2.toString()).contains("interrupted after job 0123abcd was started, before the check for racing "
                + "submits ended: it runs on, perhaps beside another writer of tierroute.params that a submit started at "
                + "the same time; check with 'tierroute cluster status' or the Flink UI at " + rest.base() + ", and if a "
                + "fitting job started before it writes that topic on the same Kafka, cancel this one (flink cancel "
                + "0123abcd, or " + rest.base() + "/#/job/running/0123abcd/overview); else stop it when done with: "
                + "tierroute submit --flink " + rest.base() + " --savepoint DIR --job-id 0123abcd")
                .doesNotContain("deleted");
        assertThat(requests).containsExactly("DELETE /jars/j1.jar", "DELETE /jars/j2.jar");
    }

    @Test
    void aDeleteThatFailsSaysHowToDoItByHand() {
        FlinkRestClient gone = new FlinkRestClient(URI.create("http://127.0.0.1:" + LoopbackPorts.free()), Duration.ofSeconds(2));
        StringWriter err = new StringWriter();
        try (SubmitOnCtrlC hook = new SubmitOnCtrlC(gone, new PrintWriter(err))) {
            hook.uploaded("x.jar");
            hook.onInterrupt();
        }
        assertThat(err.toString()).contains("the uploaded jar x.jar could not be deleted (cannot reach the Flink cluster at "
                + gone.base(), "): curl -X DELETE " + gone.base() + "/jars/x.jar");
    }
}
