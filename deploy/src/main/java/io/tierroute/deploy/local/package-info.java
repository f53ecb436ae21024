/**
 * The local cluster: a Kafka broker process and a standalone Flink session cluster as child JVMs on
 * loopback, run from Maven-resolved jars, their state directory ({@link io.tierroute.deploy.local.LocalCluster}),
 * topic creation, and a Flink REST client for submissions and savepoints. See deploy/README.md.
 */
package io.tierroute.deploy.local;
