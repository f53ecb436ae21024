/**
 * {@code SelectorServer}: the selector as a process. It owns the wiring (config → prefix index →
 * index writer pipeline → selector → HTTP API) and every thread: the index writer, the 100 ms tick,
 * and Undertow's I/O and worker threads; {@code close()} stops them in reverse order.
 */
package io.tierroute.selector.server;
