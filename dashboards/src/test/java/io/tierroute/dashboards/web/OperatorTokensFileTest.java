package io.tierroute.dashboards.web;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

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
        refused("alice sha256:" + h + "\nalice sha256:" + sha256Hex("u") + "\n", "'alice' is configured twice");
        refused("alice sha256:" + h + "\nbob sha256:" + h + "\n", "same token");
        refused("# nobody\n\n", "names no operator");
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
