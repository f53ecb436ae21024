package io.tierroute.cli;

import io.tierroute.jobs.JobSettings;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The Kafka client settings {@code submit}'s check that --bootstrap answers uses: the job's own, from its job argument
 * {@code --kafka-properties FILE} (SASL, TLS), so that a secured broker the job would get into is not refused for a
 * plain client's failure; none when the job has none. The job reads the file where its main runs (the JobManager);
 * when it cannot be read here, or names a trust or key store that cannot, the check cannot be made as the job would
 * connect, and the refusal says to skip it with {@code --no-kafka-check}.
 */
final class JobKafkaProperties {

    private JobKafkaProperties() {
    }

    /** @throws IllegalStateException when the file, or a store it names, cannot be read here */
    static Properties forTheCheck(JobSettings settings) {
        Properties p = new Properties();
        if (settings.kafkaProperties() == null) {
            return p;
        }
        String file = settings.kafkaProperties();
        String cannot = "the job argument --kafka-properties " + file;
        String skip = ", so the check that --bootstrap answers cannot use its settings; --no-kafka-check skips the check";
        try (Reader r = Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new IllegalStateException(cannot + " cannot be read here (" + IoErrors.describe(e) + ")" + skip);
        } catch (IllegalArgumentException e) { // Properties' own words, or a path Path.of refuses
            throw new IllegalStateException(cannot + " is no properties file here (" + e.getMessage() + ")" + skip);
        }
        KafkaClientConfig.unreadableLocation(p).ifPresent(why -> {
            throw new IllegalStateException(cannot + ": " + why + " here" + skip);
        });
        return p;
    }
}
