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

    /**
     * The longest line read, in bytes: a Mooncake line of {@link TraceRecord#MAX_TOKENS} tokens lists ~20 k block hashes
     * (a few hundred KB). A file with no line ends (a binary file, {@code /dev/zero}) is refused rather than buffered
     * whole until the heap runs out.
     */
    static final int MAX_LINE_BYTES = 16 << 20;

    /** A line longer than {@link #MAX_LINE_BYTES}. */
    static final class LineTooLongException extends IOException {
        LineTooLongException() {
            super("line longer than " + MAX_LINE_BYTES + " bytes (not a trace of lines?)");
        }
    }

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

    /** The next line, or null at the end of the stream; {@link LineTooLongException} past {@link #MAX_LINE_BYTES}. */
    String next() throws IOException {
        line.reset();
        int b = read();
        if (b < 0) {
            return null;
        }
        while (b >= 0 && b != '\n' && b != '\r') {
            if (line.size() == MAX_LINE_BYTES) {
                throw new LineTooLongException();
            }
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
