package io.tierroute.selector.server;

import io.tierroute.selector.config.TlsSettings;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.function.UnaryOperator;

/**
 * Builds the HTTPS listener's {@link SSLContext} from {@code server.tls}: the key store's key and
 * certificate chain, TLS 1.2 / 1.3 as the JDK negotiates them. Errors name the file and the
 * environment variable, never the password. The dashboard's {@code WebTls} loads its key store the same way;
 * DESIGN.md §2 does not let the dashboard depend on selector-runtime, so each module keeps its own.
 */
final class Https {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Https.class);

    private Https() {}

    /**
     * {@code env} looks environment variables up (the password's comes from {@link TlsSettings#keyStorePasswordEnv()}).
     * A password that the key store refuses but takes without the whitespace around it (a mounted secret's trailing
     * newline, which the token variables strip too) is used so, with one WARN naming the variable.
     */
    static SSLContext context(TlsSettings tls, UnaryOperator<String> env) {
        String password = env.apply(tls.keyStorePasswordEnv());
        if (password == null) {
            throw new IllegalStateException("server.tls: the key store password is not set: put it in the environment "
                    + "variable " + tls.keyStorePasswordEnv());
        }
        if (!Files.isRegularFile(tls.keyStore())) {
            throw new IllegalStateException("server.tls: the key store " + tls.keyStore() + " is not there (or is not a file)");
        }
        try {
            return context(tls, password);
        } catch (IllegalStateException e) {
            String stripped = password.strip();
            if (stripped.equals(password) || !(e.getCause() instanceof Exception c) || !wrongPassword(c)) {
                throw e;
            }
            SSLContext ctx = context(tls, stripped);
            log.warn("server.tls: {} has whitespace around its password (a mounted secret's trailing newline?): the key "
                    + "store {} took it without", tls.keyStorePasswordEnv(), tls.keyStore());
            return ctx;
        }
    }

    private static SSLContext context(TlsSettings tls, String password) {
        char[] pw = password.toCharArray();
        try (InputStream in = Files.newInputStream(tls.keyStore())) {
            KeyStore ks = KeyStore.getInstance(tls.keyStoreType());
            ks.load(in, pw);
            if (!holdsAKey(ks)) { // else the listener starts and every handshake fails
                throw new IllegalStateException("server.tls: the key store " + tls.keyStore() + " holds no private key ("
                        + ks.size() + " certificate entr" + (ks.size() == 1 ? "y" : "ies") + " only): the server needs its "
                        + "key with its certificate chain (e.g. openssl pkcs12 -export -inkey key.pem -in cert.pem)");
            }
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, pw);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), null, null);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            // No secret in either message.
            throw new IllegalStateException("server.tls: cannot load the " + tls.keyStoreType() + " key store "
                    + tls.keyStore() + " (" + reason(e) + (wrongPassword(e)
                    ? "; is " + tls.keyStorePasswordEnv() + " its password?)" : "; is it a " + tls.keyStoreType()
                    + " key store?)"), e);
        } finally {
            java.util.Arrays.fill(pw, '\0');
        }
    }

    private static boolean holdsAKey(KeyStore ks) throws java.security.KeyStoreException {
        for (java.util.Enumeration<String> a = ks.aliases(); a.hasMoreElements(); ) {
            if (ks.entryInstanceOf(a.nextElement(), KeyStore.PrivateKeyEntry.class)) { // not a secret key (JCEKS)
                return true;
            }
        }
        return false;
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

    /** What KeyStore.load said; an EOFException says nothing (its message is null): the file ends early. */
    private static String reason(Exception e) {
        return e instanceof java.io.EOFException ? "the file ends early" : String.valueOf(e.getMessage());
    }
}
