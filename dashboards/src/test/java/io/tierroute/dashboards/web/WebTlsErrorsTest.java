package io.tierroute.dashboards.web;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A key store that cannot be loaded says why: not there, not a key store, or (only then) the wrong password. */
class WebTlsErrorsTest {
    @TempDir
    Path dir;

    @Test
    void aMissingFileIsNotBlamedOnThePassword() {
        assertThatIllegalStateException()
                .isThrownBy(() -> new WebTls(dir.resolve("nope.p12"), "PKCS12", "x", "KS_PW").context())
                .withMessage("the key store " + dir.resolve("nope.p12") + " is not there (or is not a file)");
        assertThatIllegalStateException().isThrownBy(() -> new WebTls(dir, "PKCS12", "x", "KS_PW").context())
                .withMessageContaining("is not there (or is not a file)");
    }

    @Test
    void aFileThatIsNoKeyStoreIsNotBlamedOnThePassword() throws Exception {
        Path empty = Files.writeString(dir.resolve("empty.p12"), "");
        assertThatIllegalStateException().isThrownBy(() -> new WebTls(empty, "PKCS12", "x", "KS_PW").context())
                .withMessageContaining("is it a PKCS12 key store?").withMessageNotContaining("KS_PW");
    }
}
