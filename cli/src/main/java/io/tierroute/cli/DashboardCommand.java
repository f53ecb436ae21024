package io.tierroute.cli;

import io.tierroute.dashboards.Dashboard;
import io.tierroute.dashboards.web.OperatorTokens;
import io.tierroute.dashboards.web.OperatorTokensFile;
import io.tierroute.dashboards.web.WebTls;
import io.tierroute.deploy.local.BootstrapAddresses;
import io.tierroute.selector.server.TokenVariable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code tierroute dashboard}: the fitted-parameter dashboard (web page + JSON API) until Ctrl-C. */
@Command(name = "dashboard",
        mixinStandardHelpOptions = true,
        versionProvider = TierrouteCommand.Version.class,
        description = {"Serve the fitted-parameter dashboard: a web page and JSON API over the snapshot history "
                + "(tierroute.params) and pins (tierroute.control): timelines per fitted parameter with sample "
                + "count and quality, the per-worker rho heatmap, the quantile model, the version list with status "
                + "and reasons, and pin / unpin / rollback buttons that need the operator token.",
                "Writes (POST /api/v1/scopes/{scope}/pin|unpin|rollback) need 'Authorization: Bearer <token>' with "
                        + "the token from the environment variable named by --token-env or one of --operator-tokens; "
                        + "without it they are refused. The audit record's actor is the operator the token belongs to "
                        + "(--operator-name, or the name in the file), never a name the client sends.",
                "Stops cleanly on Ctrl-C (SIGINT) or SIGTERM.", ""},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {TierrouteCommand.STOPPED_BY_SIGNAL,
                "1:the server could not start (e.g. the port is taken)",
                "2:bad command line"})
final class DashboardCommand implements Callable<Integer> {

    @Option(names = {"-b", "--bootstrap"}, required = true, paramLabel = "HOST:PORT",
            description = "Kafka bootstrap servers (HOST:PORT[,HOST:PORT...]).")
    String bootstrap;

    @Option(names = {"-p", "--port"}, paramLabel = "N", defaultValue = "8090",
            description = "TCP port to listen on (default: ${DEFAULT-VALUE}; 0 picks a free port).")
    int port;

    @Option(names = {"--host"}, paramLabel = "H", defaultValue = "127.0.0.1",
            description = "Address to bind (default: ${DEFAULT-VALUE}; 0.0.0.0 for all interfaces). Beyond loopback "
                    + "with a token and without --tls-keystore the tokens cross the network in cleartext: the start "
                    + "warns of it.")
    String host;

    @Option(names = {"-s", "--scope"}, paramLabel = "S", defaultValue = "default",
            description = "The scope the page opens on (default: ${DEFAULT-VALUE}); every scope stays selectable.")
    String scope;

    @Option(names = {"--token-env"}, paramLabel = "NAME", defaultValue = "TIERROUTE_ADMIN_TOKEN",
            description = "Environment variable holding the operator token for pin / unpin / rollback "
                    + "(default: ${DEFAULT-VALUE}). Unset, and no --operator-tokens: the dashboard is read-only.")
    String tokenEnv;

    @Option(names = {"--operator-name"}, paramLabel = "NAME",
            description = "Who holds the --token-env token: the actor its pins, unpins and rollbacks are recorded "
                    + "under (default: '" + OperatorTokens.DEFAULT_NAME + "').")
    String operatorName;

    @Option(names = {"--operator-tokens"}, paramLabel = "FILE",
            description = "Further operators, each with their own token: one 'NAME sha256:HEX' a line (HEX = "
                    + "printf '%%s' \"$TOKEN\" | sha256sum; '#' comments). Each token's writes are recorded under its "
                    + "NAME. The file holds digests only.")
    java.nio.file.Path operatorTokens;

    @Option(names = {"--command-config"}, paramLabel = "FILE",
            description = "Kafka client properties (security.protocol, sasl.mechanism, sasl.jaas.config, ssl.* ...) "
                    + "for a secured broker, as for Kafka's own tools; pin / rollback need a principal with WRITE on "
                    + "tierroute.control and WRITE, DESCRIBE on transactional ids prefixed tierroute-control-.")
    java.nio.file.Path commandConfig;

    @Option(names = {"--read-token-env"}, paramLabel = "NAME",
            description = "Close the read-only views (the page, /vendor and every GET /api/v1) behind the token in "
                    + "this environment variable, sent as 'Authorization: Bearer <token>' or as a browser login's "
                    + "password; the operator token opens them too. Default: open to everyone.")
    String readTokenEnv;

    @Option(names = {"--tls-keystore"}, paramLabel = "FILE",
            description = "Serve HTTPS only, with the key and certificate in this key store.")
    java.nio.file.Path tlsKeyStore;

    @Option(names = {"--tls-keystore-type"}, paramLabel = "TYPE", defaultValue = "PKCS12",
            description = "Key store type (default: ${DEFAULT-VALUE}).")
    String tlsKeyStoreType;

    @Option(names = {"--tls-keystore-password-env"}, paramLabel = "NAME", defaultValue = "TIERROUTE_TLS_KEYSTORE_PASSWORD",
            description = "Environment variable holding the key store's password (default: ${DEFAULT-VALUE}); "
                    + "never passed on the command line, where other users could read it.")
    String tlsPasswordEnv;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The settings the flags ask for; a named environment variable that is unset is a usage error. */
    private Dashboard.Settings settings(String token) {
        Dashboard.Settings s = new Dashboard.Settings(bootstrap, host, port, token, tokenEnv, scope,
                KafkaClientConfig.load(commandConfig, KafkaClientConfig.DASHBOARD, spec.commandLine()));
        // A blank name would silently become the default one: the audit trail would not say who it is.
        if (operatorName != null && operatorName.isBlank()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--operator-name must not be blank: give the "
                    + "name of the operator who holds the token in " + tokenEnv + ", or leave the flag out for '"
                    + OperatorTokens.DEFAULT_NAME + "'");
        }
        if (operatorName != null) { // said with the flag: the dashboard's own words are "operator name"
            try {
                OperatorTokens.requireName(operatorName, "--operator-name");
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        if (operatorName != null && (token == null || token.isEmpty())) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--operator-name " + operatorName
                    + " names the holder of the token in " + tokenEnv + ", which is not set");
        }
        try {
            OperatorTokens named = operatorTokens == null ? OperatorTokens.none() : OperatorTokensFile.load(operatorTokens);
            s = s.withOperators(operatorName, named);
            s.operators(); // a bad name, or a name or token given twice, is a usage error before anything starts
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (readTokenEnv != null) {
            String readToken = TokenVariable.read(readTokenEnv, System::getenv);
            if (readToken == null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--read-token-env " + readTokenEnv
                        + ": that environment variable is not set" + (System.getenv(readTokenEnv) == null ? ""
                        : " (it holds only whitespace)"));
            }
            s = s.withClosedReads(readToken, readTokenEnv);
            try {
                s.operators(); // the operators passed above: this refuses a read token that is one of theirs
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--read-token-env " + readTokenEnv + ": "
                        + e.getMessage());
            }
        }
        if (tlsKeyStore != null) {
            String password = System.getenv(tlsPasswordEnv);
            if (password == null) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--tls-keystore needs the key store password in " + tlsPasswordEnv + ", which is not set");
            }
            s = s.withTls(new WebTls(tlsKeyStore, tlsKeyStoreType, password, tlsPasswordEnv));
        }
        return s;
    }

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (port < 0 || port > 65535) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--port must be in [0, 65535], got " + port);
        }
        BootstrapAddress.require(bootstrap, "--bootstrap", spec.commandLine());
        // Blank names would pass silently: an empty scope opens no page, an empty variable name reads as "not set",
        // an empty host binds what the JDK picks.
        for (String[] named : new String[][] {{"--host", host}, {"--scope", scope}, {"--token-env", tokenEnv},
                {"--tls-keystore-password-env", tlsPasswordEnv}}) {
            if (named[1].isBlank()) {
                throw new CommandLine.ParameterException(spec.commandLine(), named[0] + " must not be empty");
            }
        }
        ScopeName.require(scope, "--scope", spec.commandLine()); // the selector's rule: a page on no possible scope
        for (String tlsOnly : new String[] {"--tls-keystore-type", "--tls-keystore-password-env"}) {
            if (tlsKeyStore == null && spec.commandLine().getParseResult().hasMatchedOption(tlsOnly)) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        tlsOnly + " applies to --tls-keystore, which is not given: the dashboard would serve HTTP");
            }
        }
        // Stripped of a mounted secret's trailing newline, with a warning; whitespace only is no token (the selector's rule)
        String token = TokenVariable.read(tokenEnv, System::getenv);
        Dashboard.Settings settings = settings(token);
        boolean tokenConfigured = !settings.operators().names().isEmpty() || readTokenEnv != null;
        CleartextTokens.warning(host, tlsKeyStore != null, tokenConfigured).ifPresent(w -> {
            err.println("tierroute dashboard: " + w);
            err.flush();
        });
        // Said before the reader starts (its own WARN follows at once). A name that does not resolve may yet (a service
        // not created yet): the reader retries it.
        Optional<String> unresolvable = KafkaAnswers.unresolvable(bootstrap);
        if (unresolvable.isPresent()) {
            err.println("tierroute dashboard: " + unresolvable.get() + "; starting anyway: the history stays empty and "
                    + "the reader retries until the host resolves and Kafka answers");
            err.flush();
        }
        Dashboard dashboard;
        try {
            dashboard = Dashboard.start(settings);
        } catch (RuntimeException e) {
            err.println("tierroute dashboard: cannot start: " + e.getMessage());
            err.flush();
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            dashboard.close();
            stopped.countDown();
        }, "tierroute-shutdown"));
        out.println("tierroute dashboard on " + dashboard.uri() + " reading " + bootstrap + " (Ctrl-C to stop)");
        // Said at once: the reader's own warning comes only after its client's metadata timeout.
        if (unresolvable.isEmpty() && !BootstrapAddresses.anyListening(bootstrap)) {
            err.println("tierroute dashboard: Kafka at " + bootstrap + " does not answer yet; the history stays empty "
                    + "and the reader retries until it does");
            err.flush();
        }
        java.util.List<String> operators = settings.operators().names();
        if (operators.isEmpty()) {
            out.println("pin / unpin / rollback are disabled: set " + tokenEnv + " or give --operator-tokens to enable "
                    + "them");
        } else {
            out.println("pin / unpin / rollback recorded as the token's operator: " + String.join(", ", operators));
        }
        out.flush();
        stopped.await();
        return 0;
    }
}
