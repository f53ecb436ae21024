package io.tierroute.selector.http;

/**
 * The bearer tokens a server checks, each null when not set. {@link #toString()} never shows them:
 * a record's generated one would print the secrets into any log line that mentions the object.
 *
 * @param admin the admin token (drain, health, parameter reload; it also opens reads and the data plane)
 * @param read  the read token ({@code access.read: token})
 * @param data  the data-plane token ({@code access.data: token})
 */
public record Credentials(String admin, String read, String data) {

    public static Credentials adminOnly(String admin) {
        return new Credentials(admin, null, null);
    }

    @Override
    public String toString() {
        return "Credentials[admin=" + (admin == null ? "unset" : "set") + ", read=" + (read == null ? "unset" : "set")
                + ", data=" + (data == null ? "unset" : "set") + "]";
    }
}
