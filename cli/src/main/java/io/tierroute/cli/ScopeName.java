package io.tierroute.cli;

import io.tierroute.selector.config.ConfigLoader;
import picocli.CommandLine;

/**
 * The selector's rule for a parameter scope's name, for {@code --scope}: {@link ConfigLoader#scopeProblem}, what its
 * configuration refuses as {@code kafka.scope} (no {@code #}, which separates scope and version in the params topic's
 * keys; at most {@link ConfigLoader#MAX_NAME_CHARS} characters), so that a demo or fleet never runs a scope no selector
 * could be configured to serve.
 */
final class ScopeName {

    private ScopeName() {
    }

    /** What the selector's configuration says is wrong with {@code scope}, or null when it takes it. */
    static String problem(String scope) {
        return ConfigLoader.scopeProblem(scope);
    }

    /** A usage error naming {@code flag} when the selector's configuration would refuse {@code scope}. */
    static void require(String scope, String flag, CommandLine cl) {
        String problem = problem(scope);
        if (problem != null) {
            throw new CommandLine.ParameterException(cl, flag + ": " + problem);
        }
    }
}
