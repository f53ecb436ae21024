package io.tierroute.cli;

import picocli.CommandLine;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one check of a {@code --bootstrap} value for every command: Kafka's clients reject a bad one only
 * when they are built ("Failed to construct kafka consumer"), after the command has started its work. Whether two
 * lists name the same Kafka is {@link BrokerList}'s.
 */
final class BootstrapAddress {

    /**
     * [PROTOCOL://]HOST:PORT (Kafka's ClientUtils accepts a listener-style prefix), HOST a name, an IPv4 address
     * or a bracketed IPv6 address.
     */
    static final Pattern ONE = Pattern.compile(
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
}
