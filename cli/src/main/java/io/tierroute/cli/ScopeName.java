package io.tierroute.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.selector.config.ConfigException;
import io.tierroute.selector.config.ConfigLoader;
import picocli.CommandLine;

import java.nio.file.Path;
import java.util.Map;

/**
 * The selector's rule for a parameter scope's name, for {@code --scope}: whatever its configuration refuses as
 * {@code kafka.scope} (no {@code #}, which separates scope and version in the params topic's keys; at most
 * {@link ConfigLoader#MAX_NAME_CHARS} characters). The rule is the config loader's and is asked of it, with a
 * one-worker configuration naming the scope, so that the two cannot drift: a demo or fleet ran a scope no selector
 * could be configured to serve.
 */
final class ScopeName {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ScopeName() {
    }

    /** What the selector's configuration says is wrong with {@code scope}, or null when it takes it. */
    static String problem(String scope) {
        String config;
        try { // JSON is YAML: the value goes in quoted and escaped, whatever it holds
            config = JSON.writeValueAsString(Map.of("workers", Map.of("count", 1), "kafka", Map.of(
                    "bootstrapServers", "127.0.0.1:9092", "clientId", "tierroute-cli", "scope", scope)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the configuration that checks a scope", e);
        }
        try {
            ConfigLoader.parse(config, Path.of("."));
            return null;
        } catch (ConfigException e) {
            if (!"kafka.scope".equals(e.path())) {
                throw new IllegalStateException("the configuration that checks a scope is refused: " + e.getMessage(),
                        e);
            }
            return e.problem();
        }
    }

    /** A usage error naming {@code flag} when the selector's configuration would refuse {@code scope}. */
    static void require(String scope, String flag, CommandLine cl) {
        String problem = problem(scope);
        if (problem != null) {
            throw new CommandLine.ParameterException(cl, flag + ": " + problem);
        }
    }
}
