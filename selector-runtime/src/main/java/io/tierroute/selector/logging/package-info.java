/**
 * Logging helpers shared by the packages that read outside input ({@code kafka}, {@code sync.wire},
 * {@code sync.direct}): {@link io.tierroute.selector.logging.LogLimiter} keeps bad input from flooding the log.
 * Depends on nothing else in the selector, so any package may use it without a cycle.
 */
package io.tierroute.selector.logging;
