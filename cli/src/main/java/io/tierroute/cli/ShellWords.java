package io.tierroute.cli;

/** A value printed inside a command the user may paste into a POSIX shell. */
final class ShellWords {

    private ShellWords() {
    }

    /**
     * {@code value} as one shell word: as it is when it has nothing a shell reads specially, else in single quotes
     * (deploy's {@link io.tierroute.deploy.local.ShellWords}, which the local cluster's own messages use).
     */
    static String quote(String value) {
        return io.tierroute.deploy.local.ShellWords.quote(value);
    }
}
