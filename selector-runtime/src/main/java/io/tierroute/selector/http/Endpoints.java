package io.tierroute.selector.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import io.tierroute.selector.ingest.IndexWriter;
import io.tierroute.selector.metrics.SelectorMetrics;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sequences.Telemetry;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HeaderMap;
import io.undertow.util.HeaderValues;
import io.undertow.util.HttpString;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import net.openhft.hashing.LongHashFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns request bodies into domain calls: the route request, request lifecycle events, KV events
 * and telemetry. Validation lives here where a message can still name the JSON field.
 */
final class Endpoints {

    static final ObjectReader ROUTE = Json.MAPPER.readerFor(Bodies.Route.class);
    static final ObjectReader EVENT = Json.MAPPER.readerFor(Bodies.RequestEvent.class);
    static final ObjectReader EVENTS = Json.MAPPER.readerFor(Bodies.RequestEvent[].class);
    static final ObjectReader KV_EVENTS = Json.MAPPER.readerFor(Bodies.KvEvents.class);
    /** Tells a sender's retry of a numbered KV batch (the same bytes) from a restarted engine's batch 0. */
    private static final LongHashFunction BODY_HASH = LongHashFunction.xx3();
    static final ObjectReader TELEMETRY = Json.MAPPER.readerFor(Bodies.Telemetry.class);
    static final ObjectReader HEALTH = Json.MAPPER.readerFor(Bodies.Health.class);

    static final HttpString WORKFLOW_ID = new HttpString("x-agent-workflow-id");
    static final HttpString STEP_ID = new HttpString("x-agent-step-id");
    static final HttpString EXPECTED_TOOLS = new HttpString("x-agent-expected-tools");

    /** Ids, as worker names in the configuration: the fitting job refuses longer ones in every record. */
    private static final int MAX_ID_LENGTH = io.tierroute.selector.config.ConfigLoader.MAX_NAME_CHARS;
    private static final int MAX_TOOLS = 256;
    private static final int MAX_COUNT = 10_000_000;

    /** A JSON reply: status, body, and a Retry-After in seconds when > 0. */
    record Reply(int status, Object body, int retryAfterSeconds) {
        Reply(int status, Object body) {
            this(status, body, 0);
        }
    }

    private static final Logger log = LoggerFactory.getLogger(Endpoints.class);

    private final Selector selector;
    private final IndexWriter writer;
    private final int maxBatchEvents;
    private final SelectorMetrics metrics;
    private final String idPrefix = Long.toString(ThreadLocalRandom.current().nextLong() & 0xffffffffL, 36) + "-";
    private final AtomicLong ids = new AtomicLong();
    /** Workers whose telemetry said more KV in use than their configured capacity (logged once each). */
    private final Set<Integer> overCapacityWarned = ConcurrentHashMap.newKeySet();
    private final TelemetrySequences telemetrySequences;
    private final KvBatchSequences kvBatchSequences;

    Endpoints(Selector selector, IndexWriter writer, SelectorMetrics metrics, int maxBatchEvents) {
        this.maxBatchEvents = maxBatchEvents;
        this.selector = selector;
        this.writer = writer;
        this.metrics = metrics;
        this.telemetrySequences = new TelemetrySequences(selector.registry().size());
        this.kvBatchSequences = new KvBatchSequences(selector.registry().size());
    }

    // ---- POST /v1/route ----

    /** The route request in {@code body[0, length)} (the array may be a reused buffer). */
    RouteRequest routeRequest(byte[] body, int length, HeaderMap headers) throws IOException {
        Bodies.Route b = RouteBodyParser.tryParse(body, length);
        if (b == null) {
            b = object(ROUTE.readValue(body, 0, length)); // the general path, and the one that explains errors
        }
        String id = b.request_id == null ? generatedId() : text("request_id", b.request_id);
        text("model", b.model);
        text("lora", b.lora);
        text("namespace", b.namespace);
        if (b.token_ids != null) {
            int[] t = b.token_ids;
            for (int i = 0; i < t.length; i++) {
                if (t[i] < 0) {
                    throw new ApiError(400, "field 'token_ids[" + i + "]': token ids must be ≥ 0, got " + t[i]);
                }
            }
        }
        String empty = b.token_ids != null && b.token_ids.length == 0 ? "token_ids []"
                : b.text != null && b.text.isEmpty() ? "text \"\""
                : b.input_tokens != null && b.input_tokens == 0 ? "input_tokens 0" : null;
        if (empty != null) {
            throw new ApiError(400, "the prompt is empty (" + empty + "): an engine has nothing to prefill; "
                    + "send at least one token");
        }
        if (b.block_hashes != null && b.input_tokens != null && b.input_tokens >= 0) { // a negative one: RouteRequest says
            checkBlockCount(b.block_hashes.length, b.input_tokens, selector.settings().blockSize());
        }
        int maxTokens = b.max_tokens == null ? selector.settings().defaultMaxTokens() : b.max_tokens;
        RouteRequest.AgentContext agent = agent(b.agent, headers);
        try {
            return new RouteRequest(id, b.model, b.lora, b.namespace, b.token_ids, b.block_hashes, b.text,
                    b.input_tokens, maxTokens, b.expected_output_tokens, agent, Boolean.TRUE.equals(b.explain));
        } catch (IllegalArgumentException e) {
            throw new ApiError(400, e.getMessage());
        }
    }

    /**
     * An id for a route sent without one: this selector's prefix, a counter, and 40 random bits. The random part keeps a
     * client from claiming the ids of routes still to come (a counter alone is guessable from any answer, and a client
     * id taken first makes those routes 409s).
     */
    private String generatedId() {
        return idPrefix + Long.toString(ids.incrementAndGet(), 36) + "-"
                + Long.toString(ThreadLocalRandom.current().nextLong() & 0xff_ffff_ffffL, 36);
    }

    /**
     * {@code blocks} ids stand for the prompt's full blocks, the last partial one counted or not (traces count
     * it): {@code input_tokens} must lie within one block of {@code blocks × blockSize}. Anything else is a
     * client that hashed with another block size, or a length that would misprice prefill and KV.
     */
    static void checkBlockCount(int blocks, int inputTokens, int blockSize) {
        long full = (long) blocks * blockSize;
        if (inputTokens <= full - blockSize || inputTokens >= full + blockSize) {
            throw new ApiError(400, "input_tokens (" + inputTokens + ") disagrees with the " + blocks
                    + " block_hashes given: at " + blockSize + " tokens per block they stand for " + Math.max(0, full - blockSize + 1)
                    + ".." + (full + blockSize - 1) + " tokens");
        }
    }

    /**
     * The agent context from the body's {@code agent} and the {@code x-agent-*} headers. Either may carry each part;
     * where both do they must agree (as must a header given twice): two workflow ids would credit one workflow's
     * affinity to another, so a disagreement is a 400 naming both, never a silent pick.
     */
    private static RouteRequest.AgentContext agent(Bodies.Agent a, HeaderMap headers) {
        String workflow = text(WORKFLOW_ID.toString(), single(headers, WORKFLOW_ID));
        String step = text(STEP_ID.toString(), single(headers, STEP_ID));
        // A list-valued field: repeated headers join with commas (RFC 9110 §5.3).
        String tools = headers.contains(EXPECTED_TOOLS)
                ? HeaderText.utf8(EXPECTED_TOOLS, String.join(",", headers.get(EXPECTED_TOOLS))) : null;
        if (a == null && workflow == null && step == null && tools == null) {
            return null;
        }
        List<String> expected = new ArrayList<>();
        if (a != null) {
            workflow = agree("agent.workflow_id", text("agent.workflow_id", a.workflow_id), WORKFLOW_ID, workflow);
            step = agree("agent.step_id", text("agent.step_id", a.step_id), STEP_ID, step);
            if (a.expected_next_tools != null) {
                for (int i = 0; i < a.expected_next_tools.size(); i++) {
                    String t = a.expected_next_tools.get(i);
                    if (t == null || t.isBlank()) {
                        throw new ApiError(400, "field 'agent.expected_next_tools[" + i + "]': must be a non-empty tool name");
                    }
                    expected.add(text("agent.expected_next_tools[" + i + "]", t));
                }
                List<String> headerTools = tools == null ? List.of() : toolNames(tools); // an empty header names none
                if (!headerTools.isEmpty() && !new LinkedHashSet<>(expected).equals(new LinkedHashSet<>(headerTools))) {
                    throw new ApiError(400, "agent.expected_next_tools " + expected + " and the header " + EXPECTED_TOOLS
                            + " " + headerTools + " name different tools: give them once");
                }
                tools = null;
            }
        }
        if (tools != null) {
            // The header is bounded by server.maxHeaderBytes: split it whole, so a refusal counts every tool.
            List<String> named = toolNames(tools);
            if (named.size() > MAX_TOOLS) {
                throw new ApiError(400, "at most " + MAX_TOOLS + " expected next tools, got " + named.size()
                        + " in " + EXPECTED_TOOLS);
            }
            for (String t : named) {
                expected.add(text(EXPECTED_TOOLS.toString(), t));
            }
        }
        if (expected.size() > MAX_TOOLS) {
            throw new ApiError(400, "at most " + MAX_TOOLS + " expected next tools, got " + expected.size());
        }
        if (step != null && workflow == null) {
            // A step numbers a workflow's calls; alone it would be recorded against no workflow and fit nothing.
            throw new ApiError(400, "agent.step_id (or " + STEP_ID + ") needs the workflow it belongs to: give "
                    + "agent.workflow_id (or " + WORKFLOW_ID + ") too, or leave the step out");
        }
        return new RouteRequest.AgentContext(workflow, step, expected);
    }

    /** The tool names of an {@code x-agent-expected-tools} value, blanks between commas skipped. */
    private static List<String> toolNames(String header) {
        List<String> named = new ArrayList<>();
        for (String t : header.split(",")) {
            if (!t.isBlank()) {
                named.add(t.trim());
            }
        }
        return named;
    }

    /** A header that names one thing: given twice, its values must be the same. */
    private static String single(HeaderMap headers, HttpString name) {
        HeaderValues values = headers.get(name);
        if (values == null || values.isEmpty()) {
            return null;
        }
        for (String v : values) {
            if (!v.equals(values.getFirst())) {
                throw new ApiError(400, "header " + name + " given " + values.size() + " times with different values ('"
                        + ApiError.clip(values.getFirst()) + "', '" + ApiError.clip(v) + "'): give it once");
            }
        }
        return HeaderText.utf8(name, values.getFirst());
    }

    /** The body's value of a part, or the header's; both given, they must be equal. */
    private static String agree(String field, String body, HttpString header, String fromHeader) {
        if (body != null && fromHeader != null && !body.equals(fromHeader)) {
            throw new ApiError(400, "field '" + field + "' ('" + ApiError.clip(body) + "') and the header " + header + " ('"
                    + ApiError.clip(fromHeader) + "') disagree: give it once, or the same in both");
        }
        return body != null ? body : fromHeader;
    }


    /** A body of JSON {@code null} reads as a null object: refuse it like any other wrong shape. */
    static <T> T object(T value) {
        if (value == null) {
            throw new ApiError(400, "expected a JSON object, got null");
        }
        return value;
    }

    /**
     * An id or name as given, or null: not blank (no visible character: whitespace, a space such as U+00A0, or a format
     * character such as U+200B alone), at most {@link #MAX_ID_LENGTH} characters, no control character and no lone
     * surrogate (which UTF-8 cannot carry into a decision record's key: the id there would not be the client's).
     */
    private static boolean nothingVisible(String value) {
        for (int i = 0; i < value.length(); i++) { // a loop, not a stream: four ids a route
            char c = value.charAt(i);
            if (!Character.isWhitespace(c) && !Character.isSpaceChar(c) && Character.getType(c) != Character.FORMAT) {
                return false;
            }
        }
        return true;
    }

    private static String text(String field, String value) {
        if (value == null) {
            return null;
        }
        if (nothingVisible(value)) {
            throw new ApiError(400, "field '" + field + "': must not be empty");
        }
        if (value.length() > MAX_ID_LENGTH) {
            throw new ApiError(400, "field '" + field + "': at most " + MAX_ID_LENGTH + " characters, got " + value.length());
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                throw new ApiError(400, String.format(java.util.Locale.ROOT,
                        "field '%s': no control characters, got U+%04X at index %d", field, (int) c, i));
            }
            boolean paired = Character.isHighSurrogate(c) ? i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1)) : !Character.isLowSurrogate(c);
            if (!paired) {
                throw new ApiError(400, String.format(java.util.Locale.ROOT,
                        "field '%s': a lone surrogate U+%04X at index %d is no character", field, (int) c, i));
            }
            if (Character.isHighSurrogate(c)) {
                i++;
            }
        }
        return value;
    }

    // ---- POST /v1/requests/events ----

    Reply requestEvents(byte[] body) throws IOException {
        Bodies.RequestEvent[] raw = firstByte(body) == '[' ? EVENTS.readValue(body)
                : new Bodies.RequestEvent[] {EVENT.readValue(body)};
        if (raw.length == 0) {
            throw new ApiError(400, "the list of events is empty");
        }
        checkBatch(raw.length);
        List<RequestEvent> events = new ArrayList<>(raw.length);
        for (int i = 0; i < raw.length; i++) {
            String at = raw.length == 1 && firstByte(body) != '[' ? "" : "[" + i + "].";
            Bodies.RequestEvent e = raw[i];
            if (e == null) {
                throw new ApiError(400, "event" + (at.isEmpty() ? "" : " " + at.substring(0, at.length() - 1))
                        + " is null; expected a JSON object");
            }
            if (e.request_id == null || e.request_id.isBlank()) {
                throw new ApiError(400, "field '" + at + "request_id' is required");
            }
            text(at + "request_id", e.request_id); // an id no route could have admitted is the client's mistake
            if (e.type == null) {
                throw new ApiError(400, "field '" + at + "type' is required: first_token, tokens, finished or failed");
            }
            RequestEvent.Type type = switch (e.type) {
                case "first_token" -> RequestEvent.Type.FIRST_TOKEN;
                case "tokens" -> RequestEvent.Type.TOKENS;
                case "finished" -> RequestEvent.Type.FINISHED;
                case "failed" -> RequestEvent.Type.FAILED;
                default -> throw new ApiError(400, "field '" + at + "type': unknown event type '" + e.type
                        + "'; expected first_token, tokens, finished or failed");
            };
            int tokens = e.tokens == null ? 0 : e.tokens;
            if (tokens < 0 || tokens > MAX_COUNT) {
                throw new ApiError(400, "field '" + at + "tokens': must be in [0, " + MAX_COUNT + "], got " + tokens);
            }
            if (type == RequestEvent.Type.TOKENS && e.tokens == null) {
                throw new ApiError(400, "field '" + at + "tokens' is required for a tokens event (output tokens so far)");
            }
            events.add(new RequestEvent(e.request_id, type, tokens));
        }
        int applied = 0;
        int relayed = 0;
        List<String> unknown = new ArrayList<>();
        for (RequestEvent e : events) {
            switch (selector.report(e)) {
                case APPLIED -> applied++;
                case RELAYED -> relayed++; // another replica routed it (replica sync): told, and applied here once heard
                case UNKNOWN -> unknown.add(e.requestId());
            }
        }
        if (!unknown.isEmpty()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("error", "unknown request ids (not in flight here): " + abbreviate(unknown));
            m.put("applied", applied);
            m.put("unknown", unknown);
            return new Reply(404, m);
        }
        return new Reply(200, relayed == 0 ? Map.of("applied", applied) : Map.of("applied", applied, "relayed", relayed));
    }

    /** One batch is one index writer command or one pass over the tracker: bounded so none holds a thread long. */
    private void checkBatch(int events) {
        if (events > maxBatchEvents) {
            throw new ApiError(413, "a batch of " + events + " events is larger than the limit of " + maxBatchEvents
                    + " (server.maxBatchEvents); split it");
        }
    }

    // ---- POST /v1/kv-events ----

    Reply kvEvents(HttpServerExchange ex, byte[] body) throws IOException {
        Bodies.KvEvents b;
        try {
            b = object(KV_EVENTS.readValue(body));
        } catch (JsonProcessingException e) {
            throw refusedUnread(body, new ApiError(400, Json.describe(e)));
        } catch (ApiError e) {
            throw refusedUnread(body, e);
        }
        if (b.worker == null) {
            throw new ApiError(400, "field 'worker' is required");
        }
        int worker = selector.registry().find(b.worker)
                .orElseThrow(() -> new ApiError(404, "unknown worker '" + b.worker + "'"));
        if (b.sequence != null && b.sequence < 0) {
            throw new ApiError(400, "field 'sequence': must be ≥ 0 (0 at the engine's start, +1 per batch), got "
                    + b.sequence);
        }
        if (b.epoch != null && (b.sequence == null || b.epoch == KvBatchSequences.NO_EPOCH)) {
            throw b.sequence == null ? new ApiError(400, "field 'epoch' needs a 'sequence': it names the run the "
                    + "numbered batches come from")
                    : lost(worker, b.sequence, new ApiError(400, "field 'epoch': must be above " + KvBatchSequences.NO_EPOCH));
        }
        List<KvEvent> events;
        try {
            events = kvEvents(worker, b.events);
        } catch (ApiError e) {
            throw b.sequence == null ? e : lost(worker, b.sequence, e);
        }
        int accepted = events.size();
        if (b.sequence == null) {
            return queued(submit(events), events, accepted, null);
        }
        long bodyHash = BODY_HASH.hashBytes(body);
        long runEpoch = b.epoch == null ? KvBatchSequences.NO_EPOCH : b.epoch;
        KvBatchSequences.Judged judged = kvBatchSequences.submit(worker, runEpoch, b.sequence, bodyHash, clearFirst -> {
            if (clearFirst) {
                events.add(0, new KvEvent.Cleared(worker)); // the index no longer knows what the worker holds
            }
            return submit(events);
        });
        return switch (judged.outcome()) {
            case APPLIED -> queued(true, events, accepted, null);
            case REFUSED -> queued(false, events, accepted, null);
            case SKIPPED, EARLIER_RUN -> {
                metrics.kvBatchSkipped();
                yield new Reply(200, Map.of("accepted", 0, "skipped", skippedNote(judged, runEpoch, b.sequence)));
            }
            case RESTART, NEW_RUN, GAP -> {
                metrics.kvBatchResync(judged.outcome() != KvBatchSequences.Outcome.GAP);
                yield queued(true, events, accepted, resyncNote(judged, runEpoch, b.sequence));
            }
        };
    }

    /**
     * A numbered batch refused is lost to the index, as one the Kafka consumer skips: the worker's entries are cleared
     * and its next batch is taken as is.
     */
    private ApiError lost(int worker, long sequence, ApiError refusal) {
        kvBatchSequences.lost(worker, () -> submit(List.of(new KvEvent.Cleared(worker))));
        metrics.kvBatchLost();
        return new ApiError(refusal.status, refusal.getMessage() + " (batch " + sequence + " is lost: the worker's "
                + "index entries are cleared and its next batch is taken as is)");
    }

    /**
     * A body the strict reading refused (an unknown field, a value of the wrong type) is still a numbered batch of a
     * worker when the two can be read from it as plain JSON: lost like one refused for its events. A body that is no
     * JSON, or names no known worker or no valid sequence, clears nothing.
     */
    private ApiError refusedUnread(byte[] body, ApiError refusal) {
        JsonNode tree; // a second parse of a refused body only (at most server.maxBodyBytes): the accepted path has none
        try {
            tree = Json.MAPPER.readTree(body);
        } catch (IOException e) {
            return refusal;
        }
        JsonNode name = tree == null ? null : tree.get("worker");
        JsonNode sequence = tree == null ? null : tree.get("sequence");
        if (name == null || !name.isTextual() || sequence == null || !sequence.isIntegralNumber()
                || !sequence.canConvertToLong() || sequence.longValue() < 0) {
            return refusal;
        }
        return selector.registry().find(name.textValue())
                .map(worker -> lost(worker, sequence.longValue(), refusal)).orElse(refusal);
    }

    /** Why a numbered batch was not applied. */
    private static String skippedNote(KvBatchSequences.Judged judged, long runEpoch, long sequence) {
        return judged.outcome() == KvBatchSequences.Outcome.EARLIER_RUN
                ? "batch " + sequence + " of run " + runEpoch + " is from an earlier run than the worker's, "
                + judged.previousEpoch() + ": not applied"
                : "batch " + sequence + " is not above the worker's last, " + judged.previous() + " (a retry of the "
                + "batch applied, one overtaken by a later one, or a number reused): not applied";
    }

    /** Why the worker's index entries were cleared in front of a numbered batch. */
    private static String resyncNote(KvBatchSequences.Judged judged, long runEpoch, long sequence) {
        return switch (judged.outcome()) {
            case NEW_RUN -> "run " + runEpoch + " after run " + judged.previousEpoch() + ": the engine restarted; its "
                    + "index entries were cleared first";
            case RESTART -> "batch 0 after " + judged.previous() + ": the engine restarted; its index entries were "
                    + "cleared first";
            default -> "batch " + sequence + " after " + judged.previous() + ": the batches between never arrived; the "
                    + "worker's index entries were cleared first and are rebuilt from its events";
        };
    }

    /** The events of a batch, each checked; the batch's size first (413). */
    private List<KvEvent> kvEvents(int worker, List<Bodies.KvEvent> in) {
        if (in == null || in.isEmpty()) {
            throw new ApiError(400, "field 'events' is required and must not be empty");
        }
        checkBatch(in.size());
        List<KvEvent> events = new ArrayList<>(in.size() + 1);
        for (int i = 0; i < in.size(); i++) {
            events.add(kvEvent(worker, in.get(i), "events[" + i + "]"));
        }
        return events;
    }

    /** The answer to a batch of {@code accepted} events the index writer took (202) or refused, its queue full (503). */
    private Reply queued(boolean taken, List<KvEvent> events, int accepted, String resync) {
        if (!taken) {
            metrics.kvEventsRefused(accepted);
            return new Reply(503, Map.of("error", "the index writer is saturated; retry the batch later"), 1);
        }
        metrics.kvEventsReceived(accepted);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("accepted", accepted);
        String unpriced = selector.unpricedTiers().check(events);
        if (unpriced != null) {
            answer.put("warning", unpriced);
        }
        if (resync != null) {
            answer.put("resync", resync);
        }
        return new Reply(202, answer);
    }

    private static KvEvent kvEvent(int worker, Bodies.KvEvent e, String at) {
        if (e == null) {
            throw new ApiError(400, at + " is null");
        }
        if (e.type == null) {
            throw new ApiError(400, "field '" + at + ".type' is required: stored, removed, cleared or moved");
        }
        switch (e.type) {
            case "stored" -> {
                only(e, at, true, false, true);
                return new KvEvent.Stored(worker, tier(at + ".tier", e.tier), e.parent_hash != null,
                        e.parent_hash == null ? 0 : e.parent_hash, hashes(at, e.block_hashes));
            }
            case "removed" -> {
                only(e, at, true, false, false);
                return new KvEvent.Removed(worker, tier(at + ".tier", e.tier), hashes(at, e.block_hashes));
            }
            case "cleared" -> {
                if (e.tier != null || e.from_tier != null || e.to_tier != null || e.parent_hash != null
                        || e.block_hashes != null) {
                    throw new ApiError(400, at + ": a cleared event takes no other fields");
                }
                return new KvEvent.Cleared(worker);
            }
            case "moved" -> {
                only(e, at, false, true, false);
                Tier from = tier(at + ".from_tier", e.from_tier);
                Tier to = tier(at + ".to_tier", e.to_tier);
                if (from == to) {
                    throw new ApiError(400, at + ": from_tier and to_tier are both " + from.name().toLowerCase());
                }
                return new KvEvent.Moved(worker, from, to, hashes(at, e.block_hashes));
            }
            default -> throw new ApiError(400, "field '" + at + ".type': unknown event type '" + e.type
                    + "'; expected stored, removed, cleared or moved");
        }
    }

    private static void only(Bodies.KvEvent e, String at, boolean tier, boolean fromTo, boolean parent) {
        if (!tier && e.tier != null) {
            throw new ApiError(400, "field '" + at + ".tier': not used by a " + e.type + " event (use from_tier, to_tier)");
        }
        if (!fromTo && (e.from_tier != null || e.to_tier != null)) {
            throw new ApiError(400, "field '" + at + "." + (e.from_tier != null ? "from_tier" : "to_tier")
                    + "': only moved events take from_tier/to_tier");
        }
        if (!parent && e.parent_hash != null) {
            throw new ApiError(400, "field '" + at + ".parent_hash': only stored events take a parent hash");
        }
    }

    private static Tier tier(String field, String name) {
        if (name == null) {
            throw new ApiError(400, "field '" + field + "' is required: hbm, cpu, nvme or remote");
        }
        try {
            return Tier.parse(name);
        } catch (IllegalArgumentException ex) {
            throw new ApiError(400, "field '" + field + "': " + ex.getMessage());
        }
    }

    private static long[] hashes(String at, long[] h) {
        if (h == null || h.length == 0) {
            throw new ApiError(400, "field '" + at + ".block_hashes' is required and must not be empty");
        }
        return h;
    }

    // ---- POST /v1/telemetry ----

    /** A telemetry sample older than this is useless as a base (the selector keeps 5 s by default). */
    static final long MAX_SAMPLE_AGE_MS = 60_000;

    Reply telemetry(byte[] body) throws IOException {
        Bodies.Telemetry t = object(TELEMETRY.readValue(body));
        if (t.worker == null) {
            throw new ApiError(400, "field 'worker' is required");
        }
        int worker = selector.registry().find(t.worker)
                .orElseThrow(() -> new ApiError(404, "unknown worker '" + t.worker + "'"));
        int waiting = count("waiting", t.waiting);
        int running = count("running", t.running);
        if (t.kv_used_tokens == null) {
            throw new ApiError(400, "field 'kv_used_tokens' is required");
        }
        if (t.kv_used_tokens < 0 || t.kv_used_tokens > 1L << 40) {
            throw new ApiError(400, "field 'kv_used_tokens': must be in [0, 2^40], got " + t.kv_used_tokens);
        }
        // The sample is as old as the engine says: requests routed since it was taken go on top of it.
        long age = t.sample_age_ms == null ? 0 : t.sample_age_ms;
        if (age < 0 || age > MAX_SAMPLE_AGE_MS) {
            throw new ApiError(400, "field 'sample_age_ms': must be in [0, " + MAX_SAMPLE_AGE_MS + "], got " + age);
        }
        // Work since the previous sample tells a loaded engine from a hung one (routing.holdAtCheapestSilentAfter).
        // Validated with the rest, before the KV clamp below logs its once-per-worker warning for an accepted sample.
        long prefilled = optionalCount("prefill_tokens", t.prefill_tokens);
        long decodeSteps = optionalCount("decode_steps", t.decode_steps);
        // Caps the queued prefill the cost model charges (C_queue) at the engine's count plus what was sent since.
        long pendingPrefill = optionalCount("pending_prefill_tokens", t.pending_prefill_tokens);
        if (t.sequence != null && t.sequence < 0) {
            throw new ApiError(400, "field 'sequence': must be ≥ 0 (0 starts a series), got " + t.sequence);
        }
        // An engine never uses more KV than it has: more than the configured capacity is a configuration that
        // understates the worker (or a broken sample). Taken as is, kv_usage 249,999 would steer every request away
        // from it; refused, the sample's queue and batch would be lost with it. So it is clamped, and said.
        long capacity = selector.kvCapacityTokens(worker);
        long used = t.kv_used_tokens;
        String warning = null;
        if (used > capacity) {
            warning = "kv_used_tokens " + used + " is above the kvCapacityTokens " + capacity + " that the selector's "
                    + "configuration gives worker '" + t.worker + "'; taken as " + capacity + " (full). Set "
                    + "kvCapacityTokens to the engine's KV capacity";
            if (overCapacityWarned.add(worker)) {
                log.warn("telemetry: {} (said once per worker; every answer carries it)", warning);
            }
            used = capacity;
        }
        // Claimed last, once the sample is known good: a refused sample must not take its sequence.
        long applied = t.sequence == null ? -1 : telemetrySequences.claim(worker, t.sequence);
        if (applied >= 0) {
            metrics.telemetrySkipped();
            return new Reply(200, Map.of("accepted", false, "reason", "sequence " + t.sequence + " is not above "
                    + applied + ", the last applied for worker '" + t.worker + "': a repeat or a late sample, not "
                    + "applied (a restarted sender starts again at 0)"));
        }
        selector.onTelemetry(new Telemetry(worker, System.nanoTime() - age * 1_000_000L, waiting, running, used,
                pendingPrefill, prefilled, decodeSteps));
        if (selector.inflight().readsRunningTotals(worker)) { // logged once by the selector; every answer says it
            String totals = "decode_steps and prefill_tokens of worker '" + t.worker + "' are read as running totals "
                    + "(more than an engine does between two samples): post counts since the previous sample";
            warning = warning == null ? totals : warning + "; " + totals;
        }
        return new Reply(202, warning == null ? Map.of("accepted", true) : Map.of("accepted", true, "warning", warning));
    }

    /** An optional per-interval counter: -1 when absent (not reported), else within [0, 2^40]. */
    private static long optionalCount(String field, Long v) {
        if (v == null) {
            return -1;
        }
        if (v < 0 || v > 1L << 40) {
            throw new ApiError(400, "field '" + field + "': must be in [0, 2^40], got " + v);
        }
        return v;
    }

    private static int count(String field, Integer v) {
        if (v == null) {
            throw new ApiError(400, "field '" + field + "' is required");
        }
        if (v < 0 || v > MAX_COUNT) {
            throw new ApiError(400, "field '" + field + "': must be in [0, " + MAX_COUNT + "], got " + v);
        }
        return v;
    }

    /** {@link IndexWriter#submit}; a writer stopped for good is a 503 that says so (the message names why). */
    private boolean submit(List<KvEvent> events) {
        try {
            return writer.submit(events);
        } catch (IllegalStateException e) {
            throw new ApiError(503, e.getMessage());
        }
    }

    /** Why the index writer stopped for good, or null while it works. */
    String indexWriterFailure() {
        return writer.failure();
    }

    /** The first byte past JSON whitespace and a UTF-8 byte order mark (which Jackson skips, and so /v1/route took). */
    static int firstByte(byte[] body) {
        int i = body.length >= 3 && body[0] == (byte) 0xEF && body[1] == (byte) 0xBB && body[2] == (byte) 0xBF ? 3 : 0;
        for (; i < body.length; i++) {
            byte b = body[i];
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return b;
            }
        }
        return -1;
    }

    private static String abbreviate(List<String> ids) {
        if (ids.size() <= 10) {
            return String.join(", ", ids);
        }
        return String.join(", ", ids.subList(0, 10)) + " and " + (ids.size() - 10) + " more";
    }
}
