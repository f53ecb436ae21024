package io.tierroute.sim.trace;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Physical lines of a UTF-8 stream, ended by {@code \n}, {@code \r\n} or a lone {@code \r} (as BufferedReader
 * splits them). Each line is decoded on its own so that bad bytes are reported on their own line: a
 * BufferedReader decodes ahead and would fail on an earlier line.
 */
final class Utf8Lines {

    private final InputStream in;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder(); // reports bad input
    /** The byte read after a {@code \r} that was not a {@code \n}: the next line's first. */
    private int peeked;
    private boolean hasPeeked;

    Utf8Lines(InputStream in) {
        this.in = in;
    }

    private int read() throws IOException {
        if (hasPeeked) {
            hasPeeked = false;
            return peeked;
        }
        return in.read();
    }

    /** The next line, or null at the end of the stream. */
    String next() throws IOException {
        line.reset();
        int b = read();
        if (b < 0) {
            return null;
        }
        while (b >= 0 && b != '\n' && b != '\r') {
            line.write(b);
            b = read();
        }
        if (b == '\r') {
            int after = read();
            if (after != '\n') {
                peeked = after;
                hasPeeked = true;
            }
        }
        return utf8.decode(ByteBuffer.wrap(line.toByteArray())).toString(); // CharacterCodingException if not UTF-8
    }
}
