package io.tierroute.cli;

import io.tierroute.deploy.local.BootstrapAddresses;
import io.tierroute.deploy.local.KafkaBrokerProcess;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * Whether an operator's Kafka answers before a command relies on it, in the words {@code fleet} and {@code submit}
 * share: "Kafka at HOST:PORT does not answer; is it running?". Said at once, where the clients themselves would retry
 * for their whole metadata timeout (a submitted job: 37 s, then an HTTP 400 from Flink naming no address).
 */
final class KafkaAnswers {

    private KafkaAnswers() {
    }

    /** The refusal when nothing listens at {@code bootstrap}. */
    static String notAnswering(String bootstrap) {
        return "Kafka at " + bootstrap + " does not answer; is it running? (e.g. 'tierroute cluster status')";
    }

    /**
     * The refusal when no host of {@code bootstrap} resolves ("the host of --bootstrap H:P does not resolve (unknown
     * host H)"), else empty. Asked before any client is made: the clients would each log a WARN of
     * their own first, then fail with "No resolvable bootstrap urls", which names no host.
     */
    static Optional<String> unresolvable(String bootstrap) {
        List<String> hosts = BootstrapAddresses.noneResolves(bootstrap);
        if (hosts.isEmpty()) {
            return Optional.empty();
        }
        boolean one = bootstrap.split(",").length == 1;
        return Optional.of((one ? "the host of --bootstrap " + bootstrap + " does not resolve"
                : "no host of --bootstrap " + bootstrap + " resolves") + " (unknown host" + (hosts.size() == 1 ? " " : "s ")
                + String.join(", ", hosts) + ")");
    }

    /**
     * Empty when an Admin client with {@code client}'s settings (the job's {@code --kafka-properties}: SASL, TLS; none
     * for a plain connection) describes the cluster at {@code bootstrap} within {@code budget}; else the refusal: a
     * host that does not resolve, or why it does not answer.
     */
    static Optional<String> refusal(String bootstrap, Properties client, Duration budget) {
        Optional<String> unresolvable = unresolvable(bootstrap);
        if (unresolvable.isPresent()) {
            return unresolvable;
        }
        if (!BootstrapAddresses.anyListening(bootstrap)) {
            return Optional.of(notAnswering(bootstrap));
        }
        String why = KafkaBrokerProcess.whyNotDescribed(bootstrap, client, budget);
        return why == null ? Optional.empty() : Optional.of("Kafka at " + bootstrap + " does not answer (" + why
                + "); is it running? (e.g. 'tierroute cluster status')");
    }
}
