package io.tierroute.cli;

import io.tierroute.selector.config.AccessSettings;
import io.tierroute.selector.config.ConfigException;
import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.SelectorConfig;
import io.tierroute.selector.server.SelectorServer;
import io.tierroute.selector.server.TokenVariable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code tierroute selector}: loads a configuration, serves the HTTP API until Ctrl-C. */
@Command(name = "selector",
        mixinStandardHelpOptions = true,
        versionProvider = TierrouteCommand.Version.class,
        description = {"Run the selector: the HTTP/JSON routing API (POST /v1/route, /v1/kv-events, "
                + "/v1/requests/events, /v1/telemetry, GET /v1/workers, /v1/params, /metrics, /healthz).",
                "Admin calls (POST /v1/workers/{name}/drain, /undrain, /health, /v1/params/reload) need "
                        + "'Authorization: Bearer <token>' with the token in the environment variable that admin.tokenEnv "
                        + "names (default TIERROUTE_ADMIN_TOKEN); while it is unset they are refused (403).",
                "With access.read or access.data: token, the group's own variable (access.readTokenEnv, "
                        + "access.dataTokenEnv) or admin.tokenEnv's must be set: with neither the selector refuses to start.",
                "Stops cleanly on Ctrl-C (SIGINT) or SIGTERM.", ""},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {TierrouteCommand.STOPPED_BY_SIGNAL,
                "1:the server could not start (e.g. the port is taken)",
                "2:bad command line or bad configuration (the message names the field)"})
final class SelectorCommand implements Callable<Integer> {

    @Option(names = {"-c", "--config"}, required = true, paramLabel = "FILE",
            description = "Configuration file (YAML or JSON); every key is documented in examples/selector.yaml.")
    Path config;

    @Option(names = {"-p", "--port"}, paramLabel = "N",
            description = "TCP port to listen on, overriding server.port (0 picks a free port).")
    Integer port;

    @Option(names = {"--host"}, paramLabel = "H",
            description = "Address to bind, overriding server.host (e.g. 0.0.0.0 for all interfaces).")
    String host;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /**
     * Why a group closed behind a token ({@code access.read|data: token}) cannot be used, or null. Its own token or
     * the admin token opens it; with neither variable set every call to the group would be refused (403), and nothing
     * would say so at start-up.
     */
    static String unsetAccessToken(AccessSettings access, String adminEnv) {
        String read = unsetToken(access.read(), "read", access.readTokenEnv(), adminEnv,
                "GET /v1/workers, /v1/params, /metrics");
        return read != null ? read : unsetToken(access.data(), "data", access.dataTokenEnv(), adminEnv,
                "POST /v1/route, /v1/requests/events, /v1/kv-events, /v1/telemetry");
    }

    private static String unsetToken(AccessSettings.Mode mode, String group, String env, String adminEnv, String routes) {
        if (mode != AccessSettings.Mode.TOKEN || isSet(env) || isSet(adminEnv)) {
            return null;
        }
        return "access." + group + " is token, but neither " + env + " (access." + group + "TokenEnv) nor the admin "
                + "token's " + adminEnv + " (admin.tokenEnv) is set: every " + routes + " would be refused; set one, or "
                + "make access." + group + " open";
    }

    /** Whether {@code env} holds a token as the server reads it (whitespace only is none; the server warns of it). */
    private static boolean isSet(String env) {
        return env != null && TokenVariable.value(System.getenv(env)) != null;
    }

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (port != null && (port < 0 || port > 65535)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--port must be in [0, 65535], got " + port);
        }
        SelectorConfig cfg;
        try {
            cfg = ConfigLoader.load(config);
        } catch (ConfigException e) {
            err.println("tierroute selector: bad configuration: " + e.getMessage());
            err.flush();
            return 2;
        }
        if (port != null) {
            cfg = cfg.withServer(cfg.server().withPort(port));
        }
        if (host != null) {
            if (host.isBlank()) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--host must not be empty");
            }
            cfg = cfg.withServer(cfg.server().withHost(host));
        }
        String unset = unsetAccessToken(cfg.access(), cfg.adminTokenEnv());
        if (unset != null) {
            err.println("tierroute selector: bad configuration: " + unset);
            err.flush();
            return 2;
        }
        SelectorServer server;
        try {
            server = SelectorServer.start(cfg);
        } catch (RuntimeException e) {
            err.println("tierroute selector: cannot start: " + e.getMessage());
            err.flush();
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "tierroute-shutdown"));
        int workers = cfg.selector().workers().size();
        out.println("tierroute selector listening on " + server.uri() + " (" + Plural.of(workers, "worker")
                + "; Ctrl-C to stop)");
        String env = cfg.adminTokenEnv();
        if (env != null && !isSet(env)) {
            out.println("admin endpoints are disabled: set " + env + " to enable them");
        }
        out.flush();
        stopped.await();
        return 0;
    }
}
