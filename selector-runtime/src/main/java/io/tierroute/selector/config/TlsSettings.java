package io.tierroute.selector.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * HTTPS for the listener ({@code server.tls:}): with it the server listens on HTTPS only. The key
 * store holds the server's private key and certificate chain; its password comes from an
 * environment variable so that it never sits in the configuration file.
 *
 * @param keyStore            the key store file (PKCS12 or JKS)
 * @param keyStoreType        {@code PKCS12} (default) or {@code JKS}
 * @param keyStorePasswordEnv the environment variable that holds the key store password
 */
public record TlsSettings(Path keyStore, String keyStoreType, String keyStorePasswordEnv) {

    public static final String DEFAULT_PASSWORD_ENV = "TIERROUTE_TLS_KEYSTORE_PASSWORD";

    public TlsSettings {
        Objects.requireNonNull(keyStore, "keyStore");
        Objects.requireNonNull(keyStoreType, "keyStoreType");
        Objects.requireNonNull(keyStorePasswordEnv, "keyStorePasswordEnv");
    }
}
