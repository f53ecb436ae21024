/**
 * The shared vocabulary: tiers, worker ids ({@code WorkerRegistry}), KV events, and chained block
 * hashes ({@code BlockHasher}). Avro records of the {@code schemas} module are converted to and
 * from these types at the edges; nothing deeper sees Avro.
 */
package io.tierroute.selector.protocol;
