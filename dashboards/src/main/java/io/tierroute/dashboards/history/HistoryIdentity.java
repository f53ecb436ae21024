package io.tierroute.dashboards.history;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Which Kafka cluster, and which incarnation of each topic, the {@link HistoryReader}'s history comes from. A topic
 * deleted and created again keeps its name but gets a new topic id; a broker replaced by a new one on the same address
 * brings a new cluster id. The reader's consumer notices neither while its position is inside the new log (a position
 * past the new log's end is what {@code auto.offset.reset=none} reports), so this asks the cluster, with an Admin
 * client, every {@link #PERIOD} for its id and the topics' ids. The same check as selector-runtime's
 * {@code HistoryIdentity}, kept here because the dashboard does not depend on the selector (as {@link BrokerContact}).
 *
 * <p><b>When it blocks.</b> {@link #check()} (the reader's thread, after a poll that returned nothing) never blocks: it
 * sends a question when the last answer is {@link #PERIOD} old and otherwise only looks whether the Admin client has
 * answered. {@link #confirm} (after a poll that returned records, before they are applied) asks at once and waits for
 * the answer (one round trip; at most {@link #CONFIRM_WAIT}): a new cluster or a topic created again is fetched from as
 * soon as it answers, well before the next periodic question, and its records must not reach the old history. No
 * answer (an outage, which {@link BrokerContact} reports) or an error is no change. A topic the cluster had and now says
 * it does not have, in {@link #DELETED_AFTER} answers in a row, was deleted: a change (its records are gone from the
 * history's source), after which its creation, when it comes, is the reference again. One such answer alone is no
 * change, since a broker may not know yet of a topic just created; it keeps the id it had, so a re-creation seen in
 * the next answer is a change too. A principal not allowed to ask stops the checks, with one WARN.
 */
final class HistoryIdentity implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HistoryReader.class); // the reader's lines, its logger

    /** How often the cluster is asked. */
    static final Duration PERIOD = Duration.ofSeconds(5);
    /** How long the Admin client works on one question before it fails it. */
    static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);
    /** The longest {@link #confirm} waits for an answer before the records are taken as they are. */
    static final Duration CONFIRM_WAIT = Duration.ofSeconds(5);
    /** Answers in a row without a topic the cluster had before it is taken as deleted. */
    static final int DELETED_AFTER = 2;
    /** How often a {@link #confirm} wait looks whether its owner still runs. */
    private static final long CONFIRM_SLICE_MS = 100;

    private final Properties adminProperties;
    private final String bootstrap;
    private final List<String> topics;
    private final long periodNanos;
    private final long confirmWaitNanos;
    private final int answerTimeoutMs;
    private Admin admin;                                      // made at the first question
    private String clusterId;                                 // null until an answer named it
    private final Map<String, Uuid> topicIds = new ConcurrentHashMap<>(); // concurrent: tests read it from their thread
    private final Map<String, Integer> unknownAnswers = new HashMap<>(); // answers in a row without a topic it had
    private KafkaFuture<String> askedCluster;                 // the question in flight, or null
    private Map<String, KafkaFuture<TopicDescription>> askedTopics;
    private long nextQuestionNanos = System.nanoTime();
    private boolean refused;                                  // not allowed to ask (or no client): checks stop
    private volatile long answersTaken;                      // written by the owner's thread only; tests read it from theirs
    private KafkaFuture<String> gaveUpOn;                    // the question a confirm() stopped waiting for, or null

    /**
     * @param clientProperties the reader's client settings (security); those an Admin client does not take are left out
     */
    HistoryIdentity(String bootstrap, Properties clientProperties, List<String> topics, Duration period) {
        this(bootstrap, clientProperties, topics, period, CONFIRM_WAIT, ANSWER_TIMEOUT);
    }

    /** As above, with the confirm wait and the answer timeout of a test (the defaults: {@link #CONFIRM_WAIT},
     * {@link #ANSWER_TIMEOUT}). */
    HistoryIdentity(String bootstrap, Properties clientProperties, List<String> topics, Duration period, Duration confirmWait,
                    Duration answerTimeout) {
        this.bootstrap = bootstrap;
        this.adminProperties = adminProperties(bootstrap, clientProperties);
        this.topics = List.copyOf(topics);
        this.periodNanos = period.toNanos();
        this.confirmWaitNanos = confirmWait.toNanos();
        this.answerTimeoutMs = Math.toIntExact(answerTimeout.toMillis());
    }

    private static Properties adminProperties(String bootstrap, Properties client) {
        Properties p = new Properties();
        client.stringPropertyNames().stream().filter(AdminClientConfig.configNames()::contains)
                .forEach(k -> p.put(k, client.getProperty(k)));
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "tierroute-dashboard-history-identity");
        return p;
    }

    /**
     * What changed since the previous answer ({@code tierroute.params was deleted and created again (topic id …, was
     * …)}, {@code Kafka at HOST:PORT is another cluster now (cluster id …, was …)}) when an answer has just come and
     * says so; else null. The answer becomes the one later answers are compared with.
     */
    String check() {
        if (refused) {
            return null;
        }
        if (askedCluster == null) {
            long now = System.nanoTime();
            if (now - nextQuestionNanos >= 0) {
                ask();
                nextQuestionNanos = now + periodNanos;
            }
            return null;
        }
        if (!answered()) {
            return null;
        }
        return takeAnswer();
    }

    /**
     * For records just polled, before they are applied: asks now (a question in flight may predate their fetch, so it
     * is dropped) and waits for the answer, up to {@link #CONFIRM_WAIT} and while {@code waiting} holds (the owner's
     * running flag: a close() is not held up); what changed since the previous answer, or null. An answer that does not
     * come in time is no change (the records are applied; {@link #check()} compares it when it comes), as is an error.
     * After such a timeout it does not wait again while that question is still out (the Admin client gives up on it
     * after its answer timeout, 10 s): records still buffered in the consumer when the broker went away are not held a
     * whole wait per poll, and its answer, when it comes, is compared first. Records kept back by a stop are for the
     * caller to drop (it checks its flag after this).
     */
    String confirm(BooleanSupplier waiting) {
        if (refused) {
            return null;
        }
        KafkaFuture<String> abandoned = gaveUpOn;
        gaveUpOn = null;
        if (abandoned != null && askedCluster == abandoned) {
            if (!answered()) {
                gaveUpOn = abandoned;
                return null; // the question the last wait gave up on is still out: do not wait again
            }
            String meanwhile = takeAnswer();
            if (meanwhile != null) {
                return meanwhile;
            }
        } // else check() took its answer meanwhile: a question asked since may predate these records, so ask anew
        askedCluster = null;
        askedTopics = null;
        ask();
        nextQuestionNanos = System.nanoTime() + periodNanos;
        if (askedCluster == null) {
            return null; // refused: no client
        }
        List<KafkaFuture<?>> questions = new ArrayList<>(askedTopics.values());
        questions.add(askedCluster);
        KafkaFuture<Void> all = KafkaFuture.allOf(questions.toArray(KafkaFuture[]::new));
        long deadline = System.nanoTime() + confirmWaitNanos;
        while (!answered()) {
            if (!waiting.getAsBoolean() || System.nanoTime() - deadline >= 0) {
                gaveUpOn = askedCluster; // left in flight: check() compares it when it comes
                return null;
            }
            try {
                all.get(CONFIRM_SLICE_MS, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // failed (each answer is read on its own) or not yet: the loop looks again
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                gaveUpOn = askedCluster;
                return null;
            }
        }
        return takeAnswer();
    }

    private boolean answered() {
        return askedCluster.isDone() && askedTopics.values().stream().allMatch(KafkaFuture::isDone);
    }

    /** Compares the answer that has come with the reference, which it becomes; the question is done. */
    private String takeAnswer() {
        answersTaken++;
        String change = compare(answer(askedCluster), topicIdsAnswered(), topicsUnknown());
        askedCluster = null;
        askedTopics = null;
        return change;
    }

    /** Forgets the answers so far: the next one is the reference (the history is read anew from the topics as they are). */
    void forget() {
        clusterId = null;
        topicIds.clear();
        unknownAnswers.clear();
        askedCluster = null; // an answer in flight may predate what the new history is read from
        askedTopics = null;
        gaveUpOn = null;
        nextQuestionNanos = System.nanoTime();
    }

    private void ask() {
        try {
            if (admin == null) {
                admin = Admin.create(adminProperties);
            }
            askedCluster = admin.describeCluster(new DescribeClusterOptions().timeoutMs(answerTimeoutMs)).clusterId();
            askedTopics = admin.describeTopics(topics, new DescribeTopicsOptions().timeoutMs(answerTimeoutMs))
                    .topicNameValues();
        } catch (RuntimeException e) { // a client that cannot be made: the reader's consumer fails on the same settings
            refuse(e);
        }
    }

    private Map<String, Uuid> topicIdsAnswered() {
        Map<String, Uuid> ids = new HashMap<>();
        askedTopics.forEach((topic, f) -> {
            TopicDescription d = answer(f);
            if (d != null && d.topicId() != null && !Uuid.ZERO_UUID.equals(d.topicId())) {
                ids.put(topic, d.topicId());
            }
        });
        return ids;
    }

    /** The topics the answer says the cluster does not have (not those it failed to answer on). */
    private List<String> topicsUnknown() {
        List<String> unknown = new ArrayList<>();
        askedTopics.forEach((topic, f) -> {
            try {
                f.getNow(null);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    unknown.add(topic);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return unknown;
    }

    /** The change between the reference and an answer (the cluster's first: it explains the topics' too), or null. */
    private String compare(String cluster, Map<String, Uuid> ids, List<String> unknown) {
        String change = null;
        if (cluster != null) {
            if (clusterId != null && !clusterId.equals(cluster)) {
                change = "Kafka at " + bootstrap + " is another cluster now (cluster id " + cluster + ", was " + clusterId
                        + ")";
                topicIds.clear(); // its topics are others too, also those not created on it yet: no second change
                unknownAnswers.clear();
            }
            clusterId = cluster;
        }
        for (String topic : topics) {
            Uuid id = ids.get(topic);
            if (id == null) {
                if (!unknown.contains(topic)) {
                    unknownAnswers.remove(topic); // no answer (a timeout) breaks the run: "in a row" means in a row
                    continue;
                }
                if (topicIds.containsKey(topic)
                        && unknownAnswers.merge(topic, 1, Integer::sum) >= DELETED_AFTER) {
                    Uuid was = topicIds.remove(topic); // its creation, when it comes, is read as the reference
                    unknownAnswers.remove(topic);
                    if (change == null) {
                        change = topic + " was deleted (Kafka at " + bootstrap + " no longer has it; topic id was " + was
                                + ")";
                    }
                }
                continue;
            }
            unknownAnswers.remove(topic);
            Uuid was = topicIds.put(topic, id);
            if (change == null && was != null && !was.equals(id)) {
                change = topic + " was deleted and created again (topic id " + id + ", was " + was + ")";
            }
        }
        return change;
    }

    /** A completed future's value; null when it failed. */
    private <T> T answer(KafkaFuture<T> f) {
        try {
            return f.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AuthorizationException) {
                refuse(e.getCause());
            }
            return null; // no answer (an outage, a missing topic): no change
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private void refuse(Throwable why) {
        if (!refused) {
            refused = true;
            log.warn("dashboard history: cannot ask Kafka at {} which cluster and topic ids it has ({}); topics deleted "
                    + "and created again are then noticed only when the reader's position is past their end", bootstrap,
                    why.toString());
        }
    }

    /** Questions whose answer, or failure, has been taken (tests, from any thread). */
    long answersTaken() {
        return answersTaken;
    }

    /** The cluster id of the last answer that named one (tests). */
    String clusterId() {
        return clusterId;
    }

    /** {@code topic}'s id as last answered, the reference (tests, from any thread). */
    Uuid topicId(String topic) {
        return topicIds.get(topic);
    }

    /** Closes the Admin client without waiting for a question in flight. */
    @Override
    public void close() {
        if (admin != null) {
            admin.close(Duration.ZERO);
            admin = null;
        }
    }
}
