package io.tierroute.selector.http;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;

/** Byte-level mutations of a valid seed, driven by the fuzzer's data, for the HTTP fuzz tests. */
final class FuzzInputs {

    private FuzzInputs() {}

    static byte[] mutate(byte[] seed, FuzzedDataProvider data) {
        byte[] out = seed.clone();
        int edits = data.consumeInt(1, 6);
        for (int i = 0; i < edits && data.remainingBytes() > 0 && out.length > 0; i++) {
            int at = data.consumeInt(0, out.length - 1);
            switch (data.consumeInt(0, 2)) {
                case 0 -> out[at] = data.consumeByte();
                case 1 -> out = java.util.Arrays.copyOf(out, at);
                default -> {
                    byte[] insert = data.consumeBytes(data.consumeInt(1, 24));
                    byte[] grown = new byte[out.length + insert.length];
                    System.arraycopy(out, 0, grown, 0, at);
                    System.arraycopy(insert, 0, grown, at, insert.length);
                    System.arraycopy(out, at, grown, at + insert.length, out.length - at);
                    out = grown;
                }
            }
        }
        return out;
    }
}
