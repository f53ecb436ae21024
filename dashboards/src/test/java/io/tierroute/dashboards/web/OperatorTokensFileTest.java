package io.tierroute.dashboards.web;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.tierroute.dashboards.web.OperatorIdentityTest.sha256Hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Operator tokens files on disk: who a token belongs to, and a clear error for each malformed file. */
class OperatorTokensFileTest {

    @TempDir
    Path dir;

    private Path write(String content) throws Exception {
        Path f = dir.resolve("operators");
        Files.writeString(f, content);
        return f;
    }

    private void refused(String content, String... says) throws Exception {
        Path f = write(content);
        assertThatThrownBy(() -> OperatorTokensFile.load(f)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(f.toString()).hasMessageContainingAll(says);
    }

    @Test
    void namesTheOperatorOfEachToken() throws Exception {
        OperatorTokens ops = OperatorTokensFile.load(write("# operators\n\n  alice\tsha256:" + sha256Hex("a-token")
                + "  \nbob.smith@ops SHA256:" + sha256Hex("b-token").toUpperCase() + "\n"));
        assertThat(ops.names()).containsExactly("alice", "bob.smith@ops");
        assertThat(ops.identify("a-token")).contains("alice");
        assertThat(ops.identify("b-token")).contains("bob.smith@ops");
        assertThat(ops.identify("c-token")).isEmpty();
        assertThat(ops.identify(null)).isEmpty();
        assertThat(ops.toString()).doesNotContain(sha256Hex("a-token"));
    }

    @Test
    void malformedFilesAreRefusedWithTheLine() throws Exception {
        String h = sha256Hex("t");
        refused("alice sha256:" + h + "\nbob\n", "line 2", "two fields");
        refused("alice sha256:" + h + " extra\n", "line 1", "two fields");
        refused("alice " + h + "\n", "line 1", "sha256:", "digests, not tokens");
        refused("alice my-plain-token\n", "line 1", "digests, not tokens");
        refused("alice sha256:" + h.substring(2) + "\n", "line 1", "64 hex digits", "62");
        refused("alice sha256:" + "zz" + h.substring(2) + "\n", "line 1", "not hexadecimal");
        refused("-alice sha256:" + h + "\n", "line 1", "operator name");
        // A name or token given twice: both lines (the message named neither).
        refused("alice sha256:" + h + "\n# bob\nalice sha256:" + sha256Hex("u") + "\n",
                "operator 'alice' is configured twice (line 1 and line 3)");
        refused("alice sha256:" + h + "\nbob sha256:" + h + "\n",
                "operators 'alice' and 'bob' have the same token (line 1 and line 2): each token must name one operator");
        refused("# nobody\n\n", "names no operator");
    }

    @Test
    void aTokenInTheNameColumnIsNeverEchoed() throws Exception {
        String hex = "3f9a".repeat(16); // as from openssl rand -hex 32: a valid name by its characters
        String b64 = "q3+Vd/8kRZ0aQm1xYw2sTn4uP6oLcE9bJf7hGiKy5A0="; // openssl rand -base64 32
        String urlsafe = "Xk2pQ9vR7tLmN4bW8cZs1dYf6hJgKa3eUo5iVxTy0Bq"; // secrets.token_urlsafe(32)
        for (String token : List.of(hex, b64, urlsafe)) {
            List<String> lines = new ArrayList<>(List.of(token + " alice\n", token + "\talice\n"));
            if (!token.equals(urlsafe)) { // a url-safe token is a valid name by its characters: not detectable
                lines.add(token + " sha256:" + sha256Hex("t") + "\n");
            }
            for (String line : lines) {
                Path f = write("# swapped\n" + line);
                assertThatThrownBy(() -> OperatorTokensFile.load(f)).as(line)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContainingAll(f.toString(), "line 2")
                        .hasMessageNotContaining(token).hasMessageNotContaining(token.substring(0, 16));
            }
        }
        refused(hex + " sha256:" + sha256Hex("t") + "\n", "line 1", "looks like a token");
        // The same for the name given on the command line.
        assertThatThrownBy(() -> OperatorTokens.single("tok", hex)).hasMessageContaining("looks like a token")
                .hasMessageNotContaining(hex.substring(0, 16));
    }

    /** Beside operators from elsewhere (the --token-env token), each from the file is placed by file and line. */
    @Test
    void eachOperatorIsPlacedByFileAndLine() throws Exception {
        Path f = write("# operators\nalice sha256:" + sha256Hex("a-token") + "\n\nbob sha256:" + sha256Hex("b-token")
                + "\n");
        OperatorTokens ops = OperatorTokensFile.load(f);
        assertThat(ops.whereConfigured("alice")).contains("operator tokens file " + f + " line 2");
        assertThat(ops.whereConfigured("bob")).contains("operator tokens file " + f + " line 4");
        assertThat(ops.whereConfigured("carol")).isEmpty();
        assertThatThrownBy(() -> OperatorTokens.single("b-token", "robert", "the token in T").plus(ops))
                .hasMessage("operators 'robert' and 'bob' have the same token (the token in T and operator tokens file "
                        + f + " line 4): each token must name one operator");
        assertThatThrownBy(() -> OperatorTokens.single("x-token", "alice", "the token in T").plus(ops))
                .hasMessage("operator 'alice' is configured twice (the token in T and operator tokens file " + f
                        + " line 2)");
        assertThatThrownBy(() -> OperatorTokens.single("x-token", "alice").plus(ops)).as("no place known: as before")
                .hasMessage("operator 'alice' is configured twice");
    }

    @Test
    void aByteOrderMarkBeforeTheFirstLineIsIgnored() throws Exception {
        String h = sha256Hex("a-token");
        assertThat(OperatorTokensFile.load(write("\uFEFF# operators\nalice sha256:" + h + "\n")).names())
                .containsExactly("alice");
        assertThat(OperatorTokensFile.load(write("\uFEFFalice sha256:" + h + "\n")).identify("a-token"))
                .contains("alice");
    }

    /**
     * An unauthenticated request may carry a large header: it must be hashed once, not once per operator
     * (900 operators times 32 KB would be ~29 MB of SHA-256 a request). Hashing a string allocates its
     * UTF-8 bytes, so the bytes this thread allocates count the hashes.
     */
    @Test
    void aCredentialIsHashedOnceWhateverTheNumberOfOperators() throws Exception {
        List<OperatorTokens.Operator> list = new ArrayList<>();
        for (int i = 0; i < 900; i++) {
            list.add(new OperatorTokens.Operator("op" + i, Secret.of("token-" + i)));
        }
        OperatorTokens ops = OperatorTokens.of(list);
        assertThat(ops.identify("token-0")).contains("op0");
        assertThat(ops.identify("token-899")).contains("op899");
        String header = "x".repeat(32 * 1024);
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertThat(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled()).isTrue();
        long before = threads.getCurrentThreadAllocatedBytes();
        assertThat(ops.identify(header)).isEmpty();
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated to identify a 32 KB credential among 900 operators")
                .isLessThan(16L * header.length());
    }

    @Test
    void aFileThatCannotBeReadIsRefused() throws Exception {
        Path missing = dir.resolve("missing");
        assertThatThrownBy(() -> OperatorTokensFile.load(missing)).hasMessageContaining(missing.toString())
                .hasMessageContaining("not a readable file");
        Path big = dir.resolve("big");
        Files.write(big, new byte[(int) OperatorTokensFile.MAX_BYTES + 1]);
        assertThatThrownBy(() -> OperatorTokensFile.load(big)).hasMessageContaining("larger than");
        Path binary = dir.resolve("binary");
        Files.write(binary, new byte[] {(byte) 0xff, (byte) 0xfe, 'a', '\n'});
        assertThatThrownBy(() -> OperatorTokensFile.load(binary)).hasMessageContaining("not UTF-8");
    }

    @Test
    void aTokenWithoutANameIsTheDefaultOperator() {
        assertThat(OperatorTokens.single("tok", null).names()).containsExactly(OperatorTokens.DEFAULT_NAME);
        assertThat(OperatorTokens.single("tok", " ").names()).containsExactly(OperatorTokens.DEFAULT_NAME);
        assertThat(OperatorTokens.single("tok", "carol").identify("tok")).contains("carol");
        assertThat(OperatorTokens.single(null, "carol").enabled()).isFalse();
        assertThat(OperatorTokens.single("", null).enabled()).isFalse();
    }
}
