package io.tierroute.dashboards.web;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Reads named operator tokens from a file, one operator a line:
 *
 * <pre>
 * # name   SHA-256 of the token:  printf '%s' "$TOKEN" | sha256sum
 * alice    sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae
 * </pre>
 *
 * The file holds digests, never tokens, so reading it does not let anyone act. Blank lines and lines
 * starting with {@code #} are skipped; any other malformed line stops the start with its line number.
 */
public final class OperatorTokensFile {

    /** Far more than any team of operators; keeps a wrong path (a log, a binary) from being read whole. */
    static final long MAX_BYTES = 64 * 1024;
    private static final String PREFIX = "sha256:";

    private OperatorTokensFile() {}

    /**
     * @throws IllegalArgumentException naming the file (and the line) when it cannot be read or is malformed
     */
    public static OperatorTokens load(Path file) {
        List<String> lines;
        try {
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException("operator tokens file " + file + ": not a readable file");
            }
            if (Files.size(file) > MAX_BYTES) {
                throw new IllegalArgumentException("operator tokens file " + file + ": larger than " + MAX_BYTES
                        + " bytes");
            }
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("operator tokens file " + file + ": not UTF-8 text");
        } catch (IOException e) {
            throw new IllegalArgumentException("operator tokens file " + file + ": cannot read it: " + e.getMessage());
        }
        // Editors on Windows may start the file with a byte order mark; it is not part of the first line.
        if (!lines.isEmpty() && lines.get(0).startsWith("\uFEFF")) {
            lines.set(0, lines.get(0).substring(1));
        }
        List<OperatorTokens.Operator> ops = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = "operator tokens file " + file + " line " + (i + 1);
            try {
                ops.add(parse(line, "line " + (i + 1)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage());
            }
        }
        if (ops.isEmpty()) {
            throw new IllegalArgumentException("operator tokens file " + file + " names no operator (expected lines "
                    + "'NAME sha256:HEX')");
        }
        try {
            OperatorTokens.of(ops); // a name or token given twice, said with both lines
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("operator tokens file " + file + ": " + e.getMessage());
        }
        // Beside the --token-env token (or any other set), each operator is placed by file and line.
        return OperatorTokens.of(ops.stream().map(o -> new OperatorTokens.Operator(o.name(), o.secret(),
                "operator tokens file " + file + " " + o.where())).toList());
    }

    /**
     * One line. A malformed line's message gives what is expected, never a field: with the columns
     * swapped, or a token in place of a digest, the field is a secret (the caller adds the line number).
     */
    private static OperatorTokens.Operator parse(String line, String where) {
        String[] f = line.split("\\s+");
        if (f.length != 2) {
            throw new IllegalArgumentException("expected 'NAME sha256:HEX' (two fields), got " + f.length + " fields");
        }
        String name = OperatorTokens.requireName(f[0], "the first field, the operator name,", false);
        String d = f[1];
        if (!d.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            throw new IllegalArgumentException("the second field must be sha256:<64 hex digits>, the token's digest "
                    + "(the file holds digests, not tokens)");
        }
        String hex = d.substring(PREFIX.length());
        if (hex.length() != 64) {
            throw new IllegalArgumentException("a SHA-256 digest is 64 hex digits, got " + hex.length() + " characters");
        }
        byte[] digest;
        try {
            digest = HexFormat.of().parseHex(hex);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the digest is not hexadecimal");
        }
        return new OperatorTokens.Operator(name, Secret.ofDigest(digest), where);
    }
}
