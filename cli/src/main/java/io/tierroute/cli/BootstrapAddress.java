package io.tierroute.cli;

import picocli.CommandLine;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one check of a {@code --bootstrap} value for every command: Kafka's clients reject a bad one only
 * when they are built ("Failed to construct kafka consumer"), after the command has started its work.
 */
final class BootstrapAddress {

    /**
     * [PROTOCOL://]HOST:PORT (Kafka's ClientUtils accepts a listener-style prefix), HOST a name, an IPv4 address
     * or a bracketed IPv6 address.
     */
    private static final Pattern ONE = Pattern.compile(
            "(?:[A-Za-z][A-Za-z0-9_+.-]*://)?(\\[[0-9A-Fa-f:.]+]|[^\\s:,\\[\\]/]+):(\\d{1,5})");

    private BootstrapAddress() {}

    /** {@code value} when it is HOST:PORT[,HOST:PORT...] with every port in [1, 65535]; else a usage error naming {@code option}. */
    static String require(String value, String option, CommandLine cl) {
        if (!valid(value)) {
            throw new CommandLine.ParameterException(cl, option + " must be HOST:PORT[,HOST:PORT...] with a port in "
                    + "[1, 65535], got '" + value + "'");
        }
        return value;
    }

    static boolean valid(String value) {
        if (value == null || value.isBlank()) {
            return false;
        }
        for (String one : value.split(",", -1)) {
            Matcher m = ONE.matcher(one.strip());
            if (!m.matches()) {
                return false;
            }
            int port = Integer.parseInt(m.group(2));
            if (port < 1 || port > 65535) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether two bootstrap lists name a broker in common: the same Kafka as far as the strings tell (submit's
     * single-writer guard). A PROTOCOL:// prefix and the host's case do not count, and every loopback spelling
     * (localhost, 127.x.x.x, [::1]) is one host. Different brokers of one cluster are not recognised as such.
     */
    static boolean overlap(String a, String b) {
        Set<String> common = brokers(a);
        common.retainAll(brokers(b));
        return !common.isEmpty();
    }

    private static Set<String> brokers(String list) {
        Set<String> out = new HashSet<>();
        for (String one : list.split(",")) {
            if (one.isBlank()) {
                continue;
            }
            Matcher m = ONE.matcher(one.strip());
            if (!m.matches()) {
                out.add(one.strip().toLowerCase(Locale.ROOT));
                continue;
            }
            String host = m.group(1).toLowerCase(Locale.ROOT);
            boolean loopback = host.equals("localhost") || host.equals("[::1]") || host.matches("127\\.\\d+\\.\\d+\\.\\d+");
            out.add((loopback ? "loopback" : host) + ":" + Integer.parseInt(m.group(2)));
        }
        return out;
    }
}
