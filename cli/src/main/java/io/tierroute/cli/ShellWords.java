package io.tierroute.cli;

/** A value printed inside a command the user may paste into a POSIX shell. */
final class ShellWords {

    private ShellWords() {
    }

    /** {@code value} as one shell word: as it is when it has nothing a shell reads specially, else in single quotes. */
    static String quote(String value) {
        if (!value.isEmpty() && value.matches("[A-Za-z0-9_./:=@%+,-]+")) {
            return value;
        }
        return "'" + value.replace("'", "'\\''") + "'";
    }
}
