package io.tierroute.selector.sync.direct;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;

/** UDP ports for the direct path's tests. */
public final class UdpPorts {

    private UdpPorts() {
    }

    /**
     * {@code n} distinct UDP ports free on 127.0.0.1 now: bound together, then released (the test binds them again at
     * once). Chosen one at a time, bind-and-release may hand out the same port twice, and the second replica's bind of
     * it fails.
     */
    public static int[] free(int n) {
        List<DatagramChannel> held = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                DatagramChannel c = DatagramChannel.open();
                held.add(c);
                c.bind(new InetSocketAddress("127.0.0.1", 0));
                ports[i] = ((InetSocketAddress) c.getLocalAddress()).getPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (DatagramChannel c : held) {
                try {
                    c.close();
                } catch (IOException e) {
                    // released or not, the port was chosen
                }
            }
        }
    }
}
