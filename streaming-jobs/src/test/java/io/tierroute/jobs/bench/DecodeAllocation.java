package io.tierroute.jobs.bench;

import io.tierroute.jobs.Workload;
import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.RecordCodec;
import io.tierroute.schemas.ReusingDecoder;
import io.tierroute.schemas.Topics;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * CPU and bytes allocated per decoded record of the fitting job's three input types, one thread:
 * {@link RecordCodec#decode} (a fresh record, Avro's fast reader with boxed field values) against the
 * sources' {@link ReusingDecoder} (one reused record, generated custom coders). The benchmark's workload.
 */
public final class DecodeAllocation {
    private DecodeAllocation() {}

    public static void main(String[] args) {
        AvroTrust.install();
        Workload w = new Workload(1, "s", System.currentTimeMillis() - 3_600_000L, 0.05);
        Map<String, List<byte[]>> byTopic = new HashMap<>();
        for (ProducerRecord<byte[], byte[]> r : w.requests(20_000)) {
            byTopic.computeIfAbsent(r.topic(), k -> new ArrayList<>()).add(r.value());
        }
        for (ProducerRecord<byte[], byte[]> r : w.telemetry(2_500)) {
            byTopic.computeIfAbsent(r.topic(), k -> new ArrayList<>()).add(r.value());
        }
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int round = 0; round < 5; round++) { // the last round is printed: the earlier ones warm the JIT up
            for (String topic : List.of(Topics.DECISIONS, Topics.COMPLETIONS, Topics.TELEMETRY)) {
                RecordCodec<?> codec = Codecs.forTopic(topic);
                ReusingDecoder<?> reusing = codec.reusingDecoder();
                List<byte[]> input = byTopic.get(topic);
                for (int mode = 0; mode < 2; mode++) {
                    long bytes0 = threads.getCurrentThreadAllocatedBytes();
                    long cpu0 = threads.getCurrentThreadCpuTime();
                    long decoded = 0;
                    for (int k = 0; k < 10; k++) {
                        for (byte[] v : input) {
                            decoded += (mode == 0 ? codec.decode(v) : reusing.decode(v)) == null ? 0 : 1;
                        }
                    }
                    if (round == 4) {
                        System.out.printf("%-22s %-18s %5.0f ns CPU, %5.0f B allocated per record%n", topic,
                            mode == 0 ? "RecordCodec.decode" : "ReusingDecoder", (threads.getCurrentThreadCpuTime() - cpu0)
                                / (double) decoded, (threads.getCurrentThreadAllocatedBytes() - bytes0) / (double) decoded);
                    }
                }
            }
        }
    }
}
