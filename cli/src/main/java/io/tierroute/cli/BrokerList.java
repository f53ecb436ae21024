package io.tierroute.cli;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.Locale;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kafka bootstrap list as the set of brokers it names, each spelled one way: what submit's single-writer guard
 * compares, since one cluster goes by many spellings (localhost:9092 and 127.0.0.1:9092, another order, another case).
 * Two lists that share a broker are one cluster ({@link #sameCluster}). No DNS is asked: the guard runs on every submit,
 * a slow resolver would stall it, and the submitting machine's answer need not be the TaskManagers' anyway. So two
 * names of one host (a service name and its IP) stay apart; the guard refuses those as "cannot be judged".
 */
final class BrokerList {

    /** The one spelling of every loopback host: localhost, 127.0.0.0/8, [::1], [::ffff:127.x.x.x]. */
    static final String LOOPBACK = "loopback";

    /** A dotted quad without leading zeros, the one IPv4 form whose meaning every resolver agrees on. */
    private static final Pattern IPV4 = Pattern.compile("(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}"
            + "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");

    private BrokerList() {}

    /** Whether {@code a} and {@code b} name a broker in common: a broker belongs to one cluster only. */
    static boolean sameCluster(String a, String b) {
        return !Collections.disjoint(normalise(a), normalise(b));
    }

    /** The brokers of a comma-separated list, each {@link #broker normalised}, sorted, without duplicates or blanks. */
    static SortedSet<String> normalise(String list) {
        SortedSet<String> out = new TreeSet<>();
        for (String one : list.split(",")) {
            if (!one.isBlank()) {
                out.add(broker(one));
            }
        }
        return out;
    }

    /**
     * One broker as HOST:PORT: without surrounding blanks or a PROTOCOL:// prefix (one port is one listener),
     * the port without leading zeros, the host lower-case without a trailing root dot, {@link #LOOPBACK} for every
     * loopback spelling, an IPv4-mapped IPv6 address as IPv4 and any other IPv6 address in full ([2001:db8:0:0:0:0:0:1]).
     * What is not HOST:PORT is kept as written, lower-case: equal only to the same text.
     */
    static String broker(String one) {
        String s = one.strip().toLowerCase(Locale.ROOT);
        Matcher m = BootstrapAddress.ONE.matcher(s);
        if (!m.matches()) {
            return s;
        }
        return host(m.group(1)) + ":" + Integer.parseInt(m.group(2));
    }

    private static String host(String h) {
        if (h.startsWith("[")) {
            return ipv6(h);
        }
        String name = h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
        if (name.equals("localhost") || IPV4.matcher(name).matches() && name.startsWith("127.")) {
            return LOOPBACK;
        }
        return name;
    }

    /** A bracketed literal: the JDK parses one without a lookup ("[...]" is never resolved as a name). */
    private static String ipv6(String bracketed) {
        InetAddress a;
        try {
            a = InetAddress.getByName(bracketed);
        } catch (UnknownHostException notALiteral) {
            return bracketed;
        }
        if (a.isLoopbackAddress()) {
            return LOOPBACK;
        }
        return a instanceof Inet4Address ? a.getHostAddress() : "[" + a.getHostAddress() + "]";
    }
}
