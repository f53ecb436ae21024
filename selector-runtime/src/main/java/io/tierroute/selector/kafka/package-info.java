/**
 * The selector's Kafka side (DESIGN.md §1, §5; issue 4): parameters in, KV events in, decisions out.
 * All records are Avro single-object encoded ({@code io.tierroute.schemas.Codecs}).
 *
 * <p>File map:
 * <ul>
 *   <li>{@code ParameterLoader}: follows {@code tierroute.params} and {@code tierroute.control} from
 *       the beginning, feeds {@code ActivationRule} (schemas), and swaps the served scope's active
 *       version into the {@code ParameterStore}. Catch-up first (to the end offsets read at start),
 *       one activation, then ready; bad records keep the last good set and are counted
 *       ({@code BadRecordCounts}). Its helpers: {@code LoaderPartitions} (both topics' partitions, waiting while one
 *       is missing, and partitions added later) and {@code CatchUpOffsets} (the end offsets a session catches up
 *       to), {@code RecordIntake} (each record read: decoded, checked, fed to the rule) and {@code BadRecordReport}
 *       (a bad record: the status's last problem, a WARN, the count), {@code ActiveVersionSwap} (the rule's active
 *       version of the served scope converted and swapped into the store; versions given up, re-reads retried),
 *       {@code SwapLog} (its line per swap), {@code LoaderStatus} (the immutable {@code Status} other threads read,
 *       and its last problem), {@code ServedScopeRecords} (what it keeps of the served scope's records: the
 *       offset index, {@code RetainedRecords}, the LRU of encoded records by version, and
 *       {@code ModelCarriers}, which records carry a quantile forest), {@code ActiveSnapshotReader} (the active
 *       version's whole snapshot, its model by reference resolved), {@code SnapshotRecordReader} (reads
 *       a version no longer retained back by its offset, or scans for its key), {@code BrokerContact} (whether
 *       the consumer reaches the cluster) and {@code OutageReport} (what the status and the log say while it does not),
 *       {@code HistoryIdentity} (the cluster and topic ids: whether the history read is still the one on the topics;
 *       a history found gone is re-read from the beginning).</li>
 *   <li>{@code SnapshotProjection}: decodes only scope, version, status and controlSequence of a
 *       snapshot (schema resolution skips the rest) so catch-up does not build every forest.</li>
 *   <li>{@code SnapshotConverter}: {@code ParameterSnapshot} → {@code ParameterSet} (α's, Q_slack, λ,
 *       bandwidths, ρ by worker name, the quantile forest); refuses values it cannot use.</li>
 *   <li>{@code KvEventConsumer}: {@code tierroute.kv-events} → protocol {@code KvEvent}s → the index's
 *       single writer, with back-pressure; bad batches are skipped and counted; a worker whose state
 *       is unknown (sequence gap, restart, skipped batch) is cleared and rebuilt from its next events.</li>
 *   <li>{@code DecisionPublisher} (+ {@code DecisionRecords}): a {@code DecisionSink} that hands each
 *       admitted decision to a bounded buffer (never blocking the route, drops counted); its thread
 *       builds the {@code RoutingDecision} records and produces them to {@code tierroute.decisions}.</li>
 *   <li>{@code HandOffProducer}: the bounded buffer and sending thread both producers share (a route never waits;
 *       every item acknowledged or in exactly one drop reason; a bootstrap host that does not resolve is retried).</li>
 *   <li>{@code ReplicaSyncPublisher}, {@code ReplicaSyncConsumer}, {@code ReplicaSyncLink}: replica sync's transport
 *       on {@code tierroute.replica-sync} (the {@code sync} package's {@code ReplicaSync} is the logic): this replica's
 *       admissions and reported events out, the other replicas' in, its own records skipped.</li>
 *   <li>{@code KafkaServices}: starts/stops the enabled parts for {@code SelectorServer}, registers
 *       their metrics, answers the {@code kafka} block of {@code GET /v1/params}.</li>
 * </ul>
 *
 * <p><b>Scopes.</b> A selector serves exactly one scope ({@code kafka.scope}, default
 * {@code default}): the parameter set it routes with is that scope's active snapshot. The loader
 * still runs the activation rule for every scope it sees, so status and metrics report each scope's
 * active version and pin state; a fleet with several pools runs one selector deployment per scope.
 *
 * <p><b>Threads.</b> One thread per part ({@code tierroute-params-loader}, {@code tierroute-kv-consumer},
 * {@code tierroute-decisions}; with replica sync {@code tierroute-replica-sync-out} and {@code -in}), each owning its
 * Kafka client; other threads see immutable status
 * snapshots and atomic counters. Consumers are assigned every partition by hand, with no consumer
 * group and no committed offsets: every replica needs every record, and starts from a position of
 * its own choosing (params/control: the beginning; KV events: the end, or the beginning). A consumer
 * error never ends a thread: it restarts its session after a back-off. {@code close()} stops a thread
 * with {@code wakeup()} and a latch, never an interrupt of a Kafka client.
 */
package io.tierroute.selector.kafka;
