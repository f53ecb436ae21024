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
 * {@link RecordCodec#decode} (a fresh record, Avro's fast reader with boxed field values), generated custom
 * coders into one reused record through Avro's resolving reader (the sources' path before the seventh round), and
 * the sources' {@link ReusingDecoder} (the same coders, no resolving grammar: {@code SameSchemaDecoder}). The
 * benchmark's workload; the modes alternate within each round, rounds = first argument (default 5), the last printed.
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
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        for (int round = 0; round < rounds; round++) { // the last round is printed: the earlier ones warm the JIT up
            for (String topic : List.of(Topics.DECISIONS, Topics.COMPLETIONS, Topics.TELEMETRY)) {
                RecordCodec<?> codec = Codecs.forTopic(topic);
                ReusingDecoder<?> reusing = codec.reusingDecoder();
                ResolvingReuse<?> resolving = new ResolvingReuse<>(codec);
                List<byte[]> input = byTopic.get(topic);
                for (int mode = 0; mode < 3; mode++) {
                    long bytes0 = threads.getCurrentThreadAllocatedBytes();
                    long cpu0 = threads.getCurrentThreadCpuTime();
                    long decoded = 0;
                    for (int k = 0; k < 10; k++) {
                        for (byte[] v : input) {
                            Object r = mode == 0 ? codec.decode(v) : mode == 1 ? resolving.decode(v) : reusing.decode(v);
                            decoded += r == null ? 0 : 1;
                        }
                    }
                    if (round == rounds - 1) {
                        System.out.printf("%-22s %-30s %5.0f ns CPU, %5.0f B allocated per record%n", topic,
                            mode == 0 ? "RecordCodec.decode" : mode == 1 ? "custom coders, resolving reader" : "ReusingDecoder", (threads.getCurrentThreadCpuTime() - cpu0)
                                / (double) decoded, (threads.getCurrentThreadAllocatedBytes() - bytes0) / (double) decoded);
                    }
                }
            }
        }
    }

    /** Custom coders into one reused record through Avro's resolving reader (writer schema = reader schema). */
    private static final class ResolvingReuse<T extends org.apache.avro.specific.SpecificRecord> {
        private final org.apache.avro.specific.SpecificDatumReader<T> reader;
        private final T record;
        private org.apache.avro.io.BinaryDecoder decoder;

        @SuppressWarnings("unchecked")
        ResolvingReuse(RecordCodec<T> codec) {
            org.apache.avro.specific.SpecificData model = new org.apache.avro.specific.SpecificData();
            model.setCustomCoders(true);
            model.setFastReaderEnabled(false);
            reader = new org.apache.avro.specific.SpecificDatumReader<>(codec.schema(), codec.schema(), model);
            record = (T) model.newRecord(null, codec.schema());
        }

        T decode(byte[] bytes) {
            decoder = org.apache.avro.io.DecoderFactory.get().binaryDecoder(bytes, RecordCodec.HEADER_LENGTH,
                bytes.length - RecordCodec.HEADER_LENGTH, decoder);
            try {
                return reader.read(record, decoder);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
