package io.tierroute.selector.http;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;

import java.util.List;

/**
 * The request bodies of the API, field names as on the wire. Plain mutable holders that Jackson
 * fills (field access, no reflection-heavy constructors); validation happens in {@link ApiHandler}
 * and in the domain records, so each message can name its field.
 */
final class Bodies {

    private Bodies() {}

    /** {@code POST /v1/route}. */
    static final class Route {
        public String request_id;
        public String model;
        public String lora;
        public String namespace;
        public int[] token_ids;
        @JsonDeserialize(using = HashArrayDeserializer.class)
        public long[] block_hashes;
        public String text;
        public Integer input_tokens;
        public Integer max_tokens;
        public Integer expected_output_tokens;
        public Agent agent;
        public Boolean explain;
    }

    static final class Agent {
        public String workflow_id;
        public String step_id;
        public List<String> expected_next_tools;
    }

    /** One element of {@code POST /v1/requests/events}. */
    static final class RequestEvent {
        public String request_id;
        public String type;
        public Integer tokens;
    }

    /** {@code POST /v1/kv-events}. */
    static final class KvEvents {
        public String worker;
        /** The batch's number in the worker's series (0 at its start, +1 per batch); absent: not tracked. */
        public Long sequence;
        /** The engine's run the batch comes from, a number that rises with each run; absent: not named. */
        public Long epoch;
        public List<KvEvent> events;
    }

    static final class KvEvent {
        public String type;
        public String tier;
        public String from_tier;
        public String to_tier;
        @JsonDeserialize(using = HashArrayDeserializer.Single.class)
        public Long parent_hash;
        @JsonDeserialize(using = HashArrayDeserializer.class)
        public long[] block_hashes;
    }

    /** {@code POST /v1/telemetry}. */
    static final class Telemetry {
        public String worker;
        public Integer waiting;
        public Integer running;
        public Long kv_used_tokens;
        /** How long ago the engine took the sample (ms); 0 when absent. */
        public Long sample_age_ms;
        /** Prompt tokens the engine computed since its previous sample; absent: not reported. */
        public Long prefill_tokens;
        /** Steps that generated tokens since its previous sample; absent: not reported. */
        public Long decode_steps;
        /** Prompt tokens admitted and not yet computed (a gauge); absent: not reported. */
        public Long pending_prefill_tokens;
        /** The sample's number in the sender's series (0 starts one); absent: not tracked. */
        public Long sequence;
    }

    /** {@code POST /v1/workers/{name}/health}. */
    static final class Health {
        public Boolean healthy;
    }
}
