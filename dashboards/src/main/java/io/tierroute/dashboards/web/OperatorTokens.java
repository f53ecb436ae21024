package io.tierroute.dashboards.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Who holds which operator token: each write credential has an operator name, and that name (not
 * anything the client says) is the {@code actor} of the audit record it writes. Tokens are kept only
 * as digests ({@link Secret}); names are not secret and may appear in messages.
 */
public final class OperatorTokens {

    /** The identity of a token configured without a name (the {@code --token-env} token by default). */
    public static final String DEFAULT_NAME = "operator";

    /** A user-name-like word, so it reads well in the audit trail and never needs quoting. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}");

    /**
     * 32 or more hex digits in a row: what {@code openssl rand -hex} makes, or a digest. Never a name;
     * most likely a token pasted into the name's place, so it is refused without being quoted.
     */
    private static final Pattern TOKEN_LIKE = Pattern.compile("[0-9A-Fa-f]{32,}");

    /**
     * One named credential.
     *
     * @param where where it is configured, for messages ({@code line 3} of a file, {@code the token in NAME}), or null
     */
    record Operator(String name, Secret secret, String where) {
        Operator(String name, Secret secret) {
            this(name, secret, null);
        }
    }

    private static final OperatorTokens NONE = new OperatorTokens(List.of());

    private final List<Operator> operators;

    private OperatorTokens(List<Operator> operators) {
        this.operators = List.copyOf(operators);
    }

    public static OperatorTokens none() {
        return NONE;
    }

    /**
     * One token held by {@code name}; {@link #none()} when the token is null or empty.
     *
     * @param name the holder, or null / blank for {@link #DEFAULT_NAME}
     * @throws IllegalArgumentException when the name is not a valid operator name
     */
    public static OperatorTokens single(String token, String name) {
        return single(token, name, null);
    }

    /**
     * As {@link #single(String, String)}, configured {@code where} (e.g. {@code the token in TIERROUTE_ADMIN_TOKEN}):
     * a name or token given twice is said with where each one is.
     */
    public static OperatorTokens single(String token, String name, String where) {
        String n = name == null || name.isBlank() ? DEFAULT_NAME : requireName(name, "operator name");
        Secret s = Secret.of(token);
        return s == null ? NONE : new OperatorTokens(List.of(new Operator(n, s, where)));
    }

    /** Named digests, e.g. from {@link OperatorTokensFile}. */
    static OperatorTokens of(List<Operator> operators) {
        return NONE.plus(new OperatorTokens(operators));
    }

    /**
     * Both sets together.
     *
     * @throws IllegalArgumentException when a name or a token appears twice (the identity of a token must be one name)
     */
    public OperatorTokens plus(OperatorTokens other) {
        List<Operator> all = new ArrayList<>(operators);
        for (Operator o : other.operators) {
            for (Operator mine : all) {
                if (mine.name().equals(o.name())) {
                    throw new IllegalArgumentException("operator '" + o.name() + "' is configured twice"
                            + places(mine, o));
                }
                if (mine.secret().sameAs(o.secret())) {
                    throw new IllegalArgumentException("operators '" + mine.name() + "' and '" + o.name()
                            + "' have the same token" + places(mine, o) + ": each token must name one operator");
                }
            }
            all.add(o);
        }
        return new OperatorTokens(all);
    }

    /** Where {@code a} and {@code b} are configured, as " (line 1 and line 3)", or "" when either is not known. */
    private static String places(Operator a, Operator b) {
        return a.where() == null || b.where() == null ? "" : " (" + a.where() + " and " + b.where() + ")";
    }

    /** Where the operator {@code name} is configured (e.g. {@code operator tokens file F line 3}), if known. */
    public Optional<String> whereConfigured(String name) {
        return operators.stream().filter(o -> o.name().equals(name)).map(Operator::where)
                .filter(java.util.Objects::nonNull).findFirst();
    }

    /** Whether any write credential is configured. */
    public boolean enabled() {
        return !operators.isEmpty();
    }

    /** The operators' names, in configuration order. */
    public List<String> names() {
        return operators.stream().map(Operator::name).toList();
    }

    /**
     * The name of the operator whose token {@code credential} is, if any. Every entry is compared (no
     * early exit), so the time does not tell which operator, if any, matched.
     */
    public Optional<String> identify(String credential) {
        return credential == null ? Optional.empty() : identifyDigest(Secret.digestOf(credential));
    }

    /**
     * As {@link #identify(String)} for a credential already hashed ({@link Secret#digestOf}): the
     * credential is hashed once, whatever the number of operators.
     */
    Optional<String> identifyDigest(byte[] presented) {
        String found = null;
        for (Operator o : operators) {
            if (o.secret().matches(presented) && found == null) {
                found = o.name();
            }
        }
        return Optional.ofNullable(found);
    }

    /**
     * {@code name} when it is a valid operator name, else an IllegalArgumentException naming {@code what} (the flag or
     * field the name was given in, e.g. {@code --operator-name}).
     */
    public static String requireName(String name, String what) {
        return requireName(name, what, true);
    }

    /**
     * As {@link #requireName(String, String)}; with {@code quote} false the message never contains
     * {@code name} (it may be a token, e.g. from a file whose columns are swapped). A token-like name
     * is never quoted.
     */
    static String requireName(String name, String what, boolean quote) {
        if (name != null && TOKEN_LIKE.matcher(name).find()) {
            throw new IllegalArgumentException(what + " looks like a token or a digest (32 or more hex digits), not "
                    + "a name");
        }
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " must be 1 to 64 of letters, digits and . _ @ + - (starting "
                    + "with a letter or digit)" + (quote ? ", got '" + printable(name) + "'" : ""));
        }
        return name;
    }

    private static String printable(String s) {
        if (s == null) {
            return "";
        }
        String t = s.codePoints().limit(64).collect(StringBuilder::new,
                (b, c) -> b.appendCodePoint(Character.isISOControl(c) ? '?' : c), StringBuilder::append).toString();
        return s.length() > t.length() ? t + "…" : t;
    }

    /** Names only: the digests stay out of logs. */
    @Override
    public String toString() {
        return "OperatorTokens" + names();
    }
}
