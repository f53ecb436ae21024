package io.tierroute.sim.trace;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Physical lines of a UTF-8 stream, split on {@code \n} (a trailing {@code \r} dropped). Each line is
 * decoded on its own so that bad bytes are reported on their own line: a BufferedReader decodes ahead
 * and would fail on an earlier line.
 */
final class Utf8Lines {

    private final InputStream in;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder(); // reports bad input

    Utf8Lines(InputStream in) {
        this.in = in;
    }

    /** The next line, or null at the end of the stream. */
    String next() throws IOException {
        line.reset();
        int b = in.read();
        if (b < 0) {
            return null;
        }
        while (b >= 0 && b != '\n') {
            line.write(b);
            b = in.read();
        }
        byte[] bytes = line.toByteArray();
        int len = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return utf8.decode(ByteBuffer.wrap(bytes, 0, len)).toString(); // CharacterCodingException if not UTF-8
    }
}
