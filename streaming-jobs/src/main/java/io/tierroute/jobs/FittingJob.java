package io.tierroute.jobs;

import io.tierroute.jobs.fit.ScopeFitFunction;
import io.tierroute.jobs.fit.ScopeInput;
import io.tierroute.jobs.fit.ScopeKeys;
import io.tierroute.jobs.ingest.AcceptedRecordWatermarks;
import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.jobs.ingest.EventTimes;
import io.tierroute.jobs.ingest.IdleWatermarks;
import io.tierroute.jobs.ingest.Inbound;
import io.tierroute.jobs.ingest.InboundSplit;
import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.jobs.join.RequestJoinFunction;
import io.tierroute.jobs.join.RequestShards;
import io.tierroute.schemas.avro.DeadLetter;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fitting job (DESIGN.md §1, §5): telemetry, decisions and completions in; decisions joined
 * with completions by request id; per scope, the fitter's estimators, snapshot assembly through the
 * validation gate and publication of every snapshot to {@code tierroute.params}; control records
 * applied in the same keyed operator; undecodable or invalid records to {@code tierroute.dead-letter}.
 *
 * <pre>
 * telemetry ─► split ───────────────────────────────────┐
 * decisions ─► split ─► keyBy(request) ┐                 ├─ union ─► keyBy(scope) ┐
 * completions► split ─► keyBy(request) ┴► join ──────────┘                        ├► fit+publish ─► params
 * control ──► split ─────────────────────────────────────────────► keyBy(scope) ┘
 *   every split and the join ─► dead letters ─► dead-letter
 * </pre>
 *
 * The sources and sinks are constructor arguments ({@link KafkaWiring} makes the real ones), so a
 * test or a benchmark can wire its own.
 */
public final class FittingJob {
    private static final Logger LOG = LoggerFactory.getLogger(FittingJob.class);

    /** The four inputs, each emitting {@link Inbound} (decoded record or dead letter). */
    public record Sources(Source<Inbound, ?, ?> telemetry, Source<Inbound, ?, ?> decisions,
            Source<Inbound, ?, ?> completions, Source<Inbound, ?, ?> control) {}

    private final Sources sources;
    private final Sink<ParameterSnapshot> params;
    private final Sink<DeadLetter> deadLetters;
    private final JobSettings settings;
    private final PublishedParams published;

    public FittingJob(Sources sources, Sink<ParameterSnapshot> params, Sink<DeadLetter> deadLetters,
            JobSettings settings) {
        this(sources, params, deadLetters, settings, PublishedParams.NONE);
    }

    /**
     * @param published what {@code tierroute.params} held at start ({@link KafkaWiring#publishedParams}): a scope's
     *     version counter never restarts below its newest version there, also
     *     when the job starts without a checkpoint or savepoint, and a scope without state starts from its active
     *     snapshot there
     */
    public FittingJob(Sources sources, Sink<ParameterSnapshot> params, Sink<DeadLetter> deadLetters,
            JobSettings settings, PublishedParams published) {
        this.sources = sources;
        this.params = params;
        this.deadLetters = deadLetters;
        this.settings = settings;
        this.published = published;
    }

    /** Adds the job's operators to {@code env}. */
    public void build(StreamExecutionEnvironment env) {
        for (String w : settings.warnings()) {
            LOG.warn("fitting job settings: {}", w);
        }
        env.setParallelism(settings.parallelism());
        // Dead letters do not move event time (AcceptedRecordWatermarks): their Kafka timestamps can be anything.
        WatermarkStrategy<Inbound> watermarks = new AcceptedRecordWatermarks(WatermarkStrategy
            .<Inbound>forBoundedOutOfOrderness(settings.outOfOrderness())
            .withTimestampAssigner(new EventTimes())
            .withIdleness(settings.idleness()));
        // Optionally (--max-watermark-drift > 0), decisions, completions and telemetry advance together in
        // event time (watermark alignment). Without it, catching up on a backlog reads one topic far ahead of
        // the other: in the benchmark 130 000 completions waited in the join's state for their decisions,
        // and every checkpoint serialized them (and their timers) again. The control source is never aligned.
        WatermarkStrategy<Inbound> aligned = settings.maxWatermarkDrift().isZero() ? watermarks
            : watermarks.withWatermarkAlignment("fitting-inputs", settings.maxWatermarkDrift(), Duration.ofMillis(100));

        SingleOutputStreamOperator<TelemetrySample> telemetry = env
            .fromSource(sources.telemetry(), aligned, "telemetry source").uid("source-telemetry")
            .process(new InboundSplit.Telemetry()).returns(TypeInformation.of(TelemetrySample.class))
            .name("decode telemetry").uid("split-telemetry");
        SingleOutputStreamOperator<DecisionRow> decisions = env
            .fromSource(sources.decisions(), aligned, "decisions source").uid("source-decisions")
            .process(new InboundSplit.Decisions()).returns(TypeInformation.of(DecisionRow.class))
            .name("decode decisions").uid("split-decisions");
        SingleOutputStreamOperator<CompletionRow> completions = env
            .fromSource(sources.completions(), aligned, "completions source").uid("source-completions")
            .process(new InboundSplit.Completions()).returns(TypeInformation.of(CompletionRow.class))
            .name("decode completions").uid("split-completions");
        SingleOutputStreamOperator<SnapshotControl> controls = env
            .fromSource(sources.control(), new IdleWatermarks(), "control source").uid("source-control")
            .setParallelism(1)
            .process(new InboundSplit.Controls()).returns(TypeInformation.of(SnapshotControl.class))
            .setParallelism(1)
            .name("decode control").uid("split-control");

        SingleOutputStreamOperator<JoinedRow> joined = decisions
            .connect(completions)
            .keyBy(new RequestShards.OfDecision(), new RequestShards.OfCompletion())
            .process(new RequestJoinFunction(settings.decisionTimeout(), settings.completionGrace(),
                settings.stateTtl(), settings.jobName()))
            .returns(TypeInformation.of(JoinedRow.class))
            // A new uid since the key (a shard, not the request id) and the state changed: a savepoint of the
            // per-request join restores with --allowNonRestoredState, dropping only the sides then waiting.
            .name("join decisions with completions").uid("join-by-shard");

        DataStream<ScopeInput> fitInputs = telemetry
            .map(new ScopeKeys.WrapTelemetry()).name("telemetry as fit input").uid("wrap-telemetry")
            .union(joined.map(new ScopeKeys.WrapJoined()).name("joined row as fit input").uid("wrap-joined"));

        fitInputs
            .connect(controls)
            .keyBy(new ScopeKeys.OfInput(), new ScopeKeys.OfControl())
            .process(new ScopeFitFunction(settings, published))
            .returns(TypeInformation.of(ParameterSnapshot.class))
            .name("fit, gate and publish per scope").uid("fit")
            .sinkTo(params).name("params sink").uid("sink-params");

        telemetry.getSideOutput(InboundSplit.DEAD_LETTERS)
            .union(decisions.getSideOutput(InboundSplit.DEAD_LETTERS),
                completions.getSideOutput(InboundSplit.DEAD_LETTERS),
                controls.getSideOutput(InboundSplit.DEAD_LETTERS),
                joined.getSideOutput(InboundSplit.DEAD_LETTERS))
            .sinkTo(deadLetters).name("dead-letter sink").uid("sink-dead-letter");
    }
}
