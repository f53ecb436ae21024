/**
 * The HBM-admission wait of the cost model's {@code C_kv} (selector-runtime {@code CostModel.admissionWait}): a request
 * whose KV does not fit on a worker waits until the requests decoding there give enough of theirs back. This package
 * owns the estimate {@link io.tierroute.fitter.kvwait.AdmissionWait#micros} and its fit
 * ({@link io.tierroute.fitter.kvwait.KvWaitFitter}): the decode time per predicted output token against the KV resident
 * at decision ({@code τ₀ + α·KV_used}), then the scale {@code k} that calibrates the estimate against the waits the
 * requests realised. Pure Java, no I/O; the streaming fitting job and the simulator's warm-up fit call it on the same rows.
 */
package io.tierroute.fitter.kvwait;
