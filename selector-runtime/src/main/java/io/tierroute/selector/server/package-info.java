/**
 * {@code SelectorServer}: the selector as a process. It owns the wiring (config → prefix index →
 * index writer pipeline → selector → the Kafka parts when the config has a {@code kafka} section →
 * HTTP API) and every thread: the index writer, the 100 ms tick, the Kafka loader / consumer /
 * producer threads ({@code io.tierroute.selector.kafka.KafkaServices}), and Undertow's I/O and
 * worker threads; {@code close()} stops them in reverse order. With the parameter loader on, the
 * start waits for it to catch up (up to {@code kafka.params.startupTimeout}) before the listener opens.
 * {@code Https} builds the HTTPS listener's context from {@code server.tls}; secrets (tokens, the key
 * store password) come from environment variables through one lookup function; {@code TokenVariable} reads a token
 * (whitespace around it stripped with a warning; whitespace only is no token), for the CLI's dashboard and demo too.
 * {@code ApiListener}
 * is the Undertow listener with the {@code server:} limits, shared with {@code EmbeddedSelectorApi}:
 * the same API for a selector another component owns and drives (the demo's live fleet), with no
 * threads of its own besides Undertow's.
 */
package io.tierroute.selector.server;
