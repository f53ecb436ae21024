package io.tierroute.dashboards.web;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Objects;

/**
 * HTTPS for the dashboard: with it the server listens on HTTPS only. {@link #context} loads the key store as the
 * selector's {@code Https} does; DESIGN.md §2 does not let the dashboard depend on selector-runtime, so each
 * module keeps its own.
 *
 * @param keyStore         the key store with the server's key and certificate chain
 * @param keyStoreType     PKCS12 or JKS
 * @param keyStorePassword its password (read by the caller from an environment variable; never printed)
 * @param passwordSource   where the password came from (an environment variable name), for messages
 */
public record WebTls(Path keyStore, String keyStoreType, String keyStorePassword, String passwordSource) {

    public WebTls {
        Objects.requireNonNull(keyStore, "keyStore");
        Objects.requireNonNull(keyStoreType, "keyStoreType");
        Objects.requireNonNull(keyStorePassword, "keyStorePassword");
    }

    /**
     * The server context; errors name the file and the password's source, never the password. A password the key store
     * takes only without the whitespace around it (a mounted secret's trailing newline) is used so, with one WARN.
     */
    SSLContext context() {
        if (!Files.isRegularFile(keyStore)) {
            throw new IllegalStateException("the key store " + keyStore + " is not there (or is not a file)");
        }
        try {
            return context(keyStorePassword);
        } catch (IllegalStateException e) {
            String stripped = keyStorePassword.strip();
            if (stripped.equals(keyStorePassword) || !(e.getCause() instanceof Exception c) || !wrongPassword(c)) {
                throw e;
            }
            SSLContext ctx = context(stripped);
            org.slf4j.LoggerFactory.getLogger(WebTls.class).warn("{} has whitespace around its password (a mounted "
                    + "secret's trailing newline?): the key store {} took it without", passwordSource, keyStore);
            return ctx;
        }
    }

    private SSLContext context(String password) {
        char[] pw = password.toCharArray();
        try (InputStream in = Files.newInputStream(keyStore)) {
            KeyStore ks = KeyStore.getInstance(keyStoreType);
            ks.load(in, pw);
            if (!holdsAKey(ks)) { // else the listener starts and every handshake fails
                throw new IllegalStateException("the key store " + keyStore + " holds no private key (" + ks.size()
                        + " certificate entr" + (ks.size() == 1 ? "y" : "ies") + " only): the server needs its key with "
                        + "its certificate chain (e.g. openssl pkcs12 -export -inkey key.pem -in cert.pem)");
            }
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, pw);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), null, null);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot load the " + keyStoreType + " key store " + keyStore + " ("
                    + reason(e) + (wrongPassword(e)
                    ? "; is " + passwordSource + " its password?)" : "; is it a " + keyStoreType + " key store?)"), e);
        } finally {
            java.util.Arrays.fill(pw, '\0');
        }
    }

    @Override
    public String toString() {
        return "WebTls[" + keyStoreType + " " + keyStore + ", password from " + passwordSource + "]";
    }

    /**
     * Whether the password is what failed: KeyStore.load says a wrong store password with an UnrecoverableKeyException as
     * the cause, KeyManagerFactory.init throws one itself for a key whose password differs from the store's; anything
     * else is the file.
     */
    private static boolean wrongPassword(Exception e) {
        return e instanceof java.security.UnrecoverableKeyException
                || e.getCause() instanceof java.security.UnrecoverableKeyException;
    }

    private static boolean holdsAKey(KeyStore ks) throws java.security.KeyStoreException {
        for (java.util.Enumeration<String> a = ks.aliases(); a.hasMoreElements(); ) {
            if (ks.entryInstanceOf(a.nextElement(), KeyStore.PrivateKeyEntry.class)) { // not a secret key (JCEKS)
                return true;
            }
        }
        return false;
    }

    /** What KeyStore.load said; an EOFException says nothing (its message is null): the file ends early. */
    private static String reason(Exception e) {
        return e instanceof java.io.EOFException ? "the file ends early" : String.valueOf(e.getMessage());
    }
}
