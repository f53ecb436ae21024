/**
 * A real Kafka broker on loopback for tests and the demo ({@link io.tierroute.deploy.kafka.EmbeddedKafka}).
 * The topics and their settings are defined by callers (the names live in {@code schemas}' Topics).
 * {@link io.tierroute.deploy.kafka.KafkaClientErrors} words a Kafka client's failure for an operator.
 */
package io.tierroute.deploy.kafka;
