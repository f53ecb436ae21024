package io.tierroute.selector.config;

/**
 * A configuration or parameter file is wrong. Carries the path of the offending field
 * ({@code workers[2].tiers.cpu}) and what is wrong with it, so the message can be acted on without
 * reading code.
 */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String file;
    private final String path;
    private final String problem;

    public ConfigException(String file, String path, String problem) {
        super(format(file, path, problem));
        this.file = file;
        this.path = path;
        this.problem = problem;
    }

    public ConfigException(String path, String problem) {
        this(null, path, problem);
    }

    private static String format(String file, String path, String problem) {
        String where = path == null || path.isEmpty() ? "" : path + ": ";
        return (file == null ? "" : file + ": ") + where + problem;
    }

    /** The file, or null when the text did not come from one. */
    public String file() { return file; }

    /** The field path, e.g. {@code workers[2].tiers.cpu}; empty for the document itself. */
    public String path() { return path; }

    /** What is wrong, without the path. */
    public String problem() { return problem; }

    /** The same error, attributed to {@code file}. */
    public ConfigException inFile(String file) {
        return new ConfigException(file, path, problem);
    }
}
