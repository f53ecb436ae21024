/**
 * The write side of the prefix index. The index admits one writer; {@code KvEventPipeline} is that
 * writer in a server (a thread fed by a bounded queue, so routes and HTTP handlers never wait for
 * it), {@code DirectIndexWriter} in single-threaded drivers (simulator, tests).
 */
package io.tierroute.selector.ingest;
