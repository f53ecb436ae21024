package io.tierroute.selector.kafka;

import io.tierroute.deploy.kafka.EmbeddedKafka;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Damages a record batch in a running broker's log, as a bad disk or a bad copy would: the broker serves it as it is
 * (it does not check CRCs on a fetch), and the consumer's CRC check refuses it.
 */
final class SegmentCorruption {

    /** Bytes of a v2 record batch's header (offset, length, epoch, magic, CRC, attributes … record count). */
    private static final int BATCH_HEADER = 61;

    private SegmentCorruption() {}

    /**
     * Flips one byte inside the records of batch {@code index} (0-based) of partition 0 of {@code topic}, in its first
     * segment: the batch's CRC no longer matches.
     */
    static void corruptBatch(EmbeddedKafka k, String topic, int index) throws IOException {
        // The partition directory sits one level under the data directory (a log directory per broker). Not a walk
        // of the whole tree: the broker deletes an earlier test's topics (`*-delete`) under a walk's feet.
        Path dir;
        try (Stream<Path> logDirs = Files.list(k.dataDir())) {
            dir = logDirs.map(d -> d.resolve(topic + "-0")).filter(Files::isDirectory)
                    .findFirst().orElseThrow(() -> new IllegalStateException("no log directory of " + topic + "-0"));
        }
        try (RandomAccessFile f = new RandomAccessFile(dir.resolve("00000000000000000000.log").toFile(), "rw")) {
            long batch = 0;
            for (int i = 0; i < index; i++) {
                f.seek(batch + 8);
                batch += 12 + f.readInt(); // offset (8) and length (4), then length bytes
            }
            long at = batch + BATCH_HEADER + 8; // inside the first record: key or value bytes
            if (at >= f.length()) {
                throw new IllegalStateException(topic + "-0 has no batch " + index);
            }
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0xFF);
        }
    }
}
