package io.tierroute.selector.sync.direct;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DatagramFrameTest {

    private static final String KEY = "0123456789abcdef0123456789abcdef";

    private static ByteBuffer written(DatagramFrame f, long sequence, byte[] payload) {
        ByteBuffer out = ByteBuffer.allocate(DatagramFrame.MAX_DATAGRAM);
        f.write(sequence, payload, out);
        return out;
    }

    @Test
    void aSignedDatagramReadsBackAsWritten() throws Exception {
        byte[] payload = "an encoded message".getBytes(StandardCharsets.UTF_8);
        ByteBuffer d = written(new DatagramFrame(KEY), 42, payload);
        assertThat(d.remaining()).isEqualTo(DatagramFrame.HEADER_BYTES + payload.length + DatagramFrame.MAC_BYTES);
        DatagramFrame.Message m = new DatagramFrame(KEY).read(d);
        assertThat(m.sequence()).isEqualTo(42);
        assertThat(m.payload()).isEqualTo(payload);
    }

    @Test
    void anAlteredByteOrAnotherKeyIsRefusedAsUnsigned() {
        byte[] payload = new byte[100];
        for (int at : new int[] {0 + 5, DatagramFrame.HEADER_BYTES + 50, DatagramFrame.HEADER_BYTES + 100 + 3}) {
            ByteBuffer d = written(new DatagramFrame(KEY), 7, payload);
            d.array()[at] ^= 1;
            assertThatThrownBy(() -> new DatagramFrame(KEY).read(d))
                    .isInstanceOfSatisfying(DatagramFrame.RefusedException.class,
                            e -> assertThat(e.reason).isEqualTo(DatagramFrame.Refusal.UNSIGNED));
        }
        ByteBuffer d = written(new DatagramFrame(KEY), 7, payload);
        assertThatThrownBy(() -> new DatagramFrame(KEY.replace('0', 'x')).read(d))
                .isInstanceOfSatisfying(DatagramFrame.RefusedException.class,
                        e -> assertThat(e.reason).isEqualTo(DatagramFrame.Refusal.UNSIGNED))
                .hasMessageContaining("does not match the replica key");
    }

    @Test
    void shortOrForeignDatagramsAndSequenceZeroAreRefusedAsMalformed() {
        DatagramFrame f = new DatagramFrame(KEY);
        assertThatThrownBy(() -> f.read(ByteBuffer.wrap(new byte[10])))
                .isInstanceOfSatisfying(DatagramFrame.RefusedException.class,
                        e -> assertThat(e.reason).isEqualTo(DatagramFrame.Refusal.MALFORMED))
                .hasMessageContaining("10 bytes");
        byte[] foreign = new byte[200];
        assertThatThrownBy(() -> f.read(ByteBuffer.wrap(foreign))).hasMessageContaining("no TRS1");
        ByteBuffer zero = written(f, 0, new byte[3]); // signed, but numbers start at 1
        assertThatThrownBy(() -> f.read(zero))
                .isInstanceOfSatisfying(DatagramFrame.RefusedException.class,
                        e -> assertThat(e.reason).isEqualTo(DatagramFrame.Refusal.MALFORMED))
                .hasMessageContaining("sequence number 0");
    }

    @Test
    void aShortKeyOrAnOversizedMessageIsAClearError() {
        assertThatThrownBy(() -> new DatagramFrame("short")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 32 characters, got 5");
        assertThatThrownBy(() -> new DatagramFrame(null)).hasMessageContaining("none given");
        DatagramFrame f = new DatagramFrame(KEY);
        ByteBuffer out = ByteBuffer.allocate(DatagramFrame.MAX_DATAGRAM);
        f.write(1, new byte[DatagramFrame.MAX_PAYLOAD], out); // the largest fits
        assertThat(out.remaining()).isEqualTo(DatagramFrame.MAX_DATAGRAM);
        assertThatThrownBy(() -> f.write(1, new byte[DatagramFrame.MAX_PAYLOAD + 1], out))
                .hasMessageContaining("does not fit one datagram");
    }
}
