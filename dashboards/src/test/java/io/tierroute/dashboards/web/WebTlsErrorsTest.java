package io.tierroute.dashboards.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
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

    @Test
    void aWrongStorePasswordOrAKeyPasswordOtherThanTheStoresIsBlamedOnThePassword() throws Exception {
        TestKeyStore ks = TestKeyStore.create(dir, "right-pass-1");
        assertThatIllegalStateException().isThrownBy(() -> new WebTls(ks.file(), "PKCS12", "wrong-pass", "KS_PW").context())
                .withMessageContaining("is KS_PW its password?").withMessageNotContaining("wrong-pass");
        Path jks = dir.resolve("two-passwords.jks");
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "k", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-validity", "2", "-storetype", "JKS", "-keystore", jks.toString(), "-storepass", "store-pass-1",
                "-keypass", "key-pass-2")).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0).as("keytool made the JKS store").isTrue();
        assertThatIllegalStateException().isThrownBy(() -> new WebTls(jks, "JKS", "store-pass-1", "KS_PW").context())
                .withMessageContaining("is KS_PW its password?");
    }

    /** A key store of the certificate alone started a listener no handshake got through; a trailing newline is taken off. */
    @Test
    void aKeyStoreWithoutAKeyIsRefusedAndAPasswordsTrailingNewlineIsTakenOff() throws Exception {
        TestKeyStore ks = TestKeyStore.create(dir, "right-pass-1");
        assertThat(new WebTls(ks.file(), "PKCS12", "right-pass-1\n", "KS_PW").context()).isNotNull();
        java.security.KeyStore in = java.security.KeyStore.getInstance("PKCS12");
        try (var is = Files.newInputStream(ks.file())) {
            in.load(is, "right-pass-1".toCharArray());
        }
        java.security.KeyStore certOnly = java.security.KeyStore.getInstance("PKCS12");
        certOnly.load(null, null);
        certOnly.setCertificateEntry("c", in.getCertificate(in.aliases().nextElement()));
        Path cert = dir.resolve("cert-only.p12");
        try (var os = Files.newOutputStream(cert)) {
            certOnly.store(os, "right-pass-1".toCharArray());
        }
        assertThatIllegalStateException().isThrownBy(() -> new WebTls(cert, "PKCS12", "right-pass-1", "KS_PW").context())
                .withMessageStartingWith("the key store " + cert + " holds no private key (1 certificate entry only)");
    }
}
