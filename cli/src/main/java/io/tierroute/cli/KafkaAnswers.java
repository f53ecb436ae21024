package io.tierroute.cli;

import io.tierroute.deploy.local.BootstrapAddresses;
import io.tierroute.deploy.local.KafkaBrokerProcess;

import java.time.Duration;
import java.util.Optional;

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
     * Empty when an Admin client (plain, as the fitting job's clients are) describes the cluster at {@code bootstrap}
     * within {@code budget}; else the refusal, with why when something listens there.
     */
    static Optional<String> refusal(String bootstrap, Duration budget) {
        if (!BootstrapAddresses.anyListening(bootstrap)) {
            return Optional.of(notAnswering(bootstrap));
        }
        String why = KafkaBrokerProcess.whyNotDescribed(bootstrap, budget);
        return why == null ? Optional.empty() : Optional.of("Kafka at " + bootstrap + " does not answer (" + why
                + "); is it running? (e.g. 'tierroute cluster status')");
    }
}
