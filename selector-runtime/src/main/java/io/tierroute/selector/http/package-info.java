/**
 * The HTTP/JSON API on Undertow's core handler interface (no servlet container).
 *
 * <p>File map: {@code Route} (the route table: method, path and credential of every route; the
 * dispatcher and the access tests both use it), {@code AccessControl} (who may use a route),
 * {@code BearerToken} (a token as its SHA-256 digest, constant-time match), {@code Credentials} (the
 * admin / read / data tokens, never printed), {@code ApiHandler} (dispatch, responses), {@code BodyReader}
 * (bounded body reading: straight from the channel for small bodies, Undertow's receiver otherwise),
 * {@code HangUpWatch} (notices a client that hangs up while its route waits in the admission queue),
 * {@code Endpoints} (bodies → domain calls with field-naming validation), {@code Bodies} (wire DTOs),
 * {@code RouteBodyParser} (allocation-light fast path for route bodies; defers to Jackson for
 * anything unusual and for every error), {@code HashArrayDeserializer} (block hashes as signed or
 * unsigned 64-bit integers or {@code "0x…"} strings), {@code RouteJson} (the route answer, streamed),
 * {@code Json} (the strict mapper and its error messages), {@code DataPlaneRefusal} (409 for the data-plane
 * POSTs of a selector whose workers no client can reach: the demo's simulated fleet).
 *
 * <p>Threading: small bodies of known length are read and routed on the I/O thread that received
 * them (the selector never blocks a route); a route that waits in the admission queue is answered
 * from its connection's I/O thread, where the hang-up watch reads while it waits; file I/O (parameter
 * reload) and metric scrapes run on Undertow's worker threads.
 */
package io.tierroute.selector.http;
