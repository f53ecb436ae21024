package io.tierroute.deploy.local;

/**
 * A value printed inside a command the user may paste into a POSIX shell (a {@code --dir} with a space in it). The
 * CLI's own {@code ShellWords} uses this rule too.
 */
public final class ShellWords {

    private ShellWords() {
    }

    /** {@code value} as one shell word: as it is when it has nothing a shell reads specially, else in single quotes. */
    public static String quote(String value) {
        if (!value.isEmpty() && value.matches("[A-Za-z0-9_./:=@%+,-]+")) {
            return value;
        }
        return "'" + value.replace("'", "'\\''") + "'";
    }
}
