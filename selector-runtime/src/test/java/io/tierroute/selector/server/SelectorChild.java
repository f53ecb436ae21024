package io.tierroute.selector.server;

import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.SelectorConfig;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;

/**
 * A selector in a child JVM, as the CLI runs it: configuration from a file, secrets from the real
 * environment, logs from slf4j-simple on stderr. Prints {@code URI <base>} when listening and stops
 * when its stdin closes. Exit 2 when the configuration or the start fails.
 */
public final class SelectorChild {

    private SelectorChild() {}

    public static void main(String[] args) throws Exception {
        SelectorServer server;
        try {
            SelectorConfig c = ConfigLoader.load(Path.of(args[0]));
            server = SelectorServer.start(c.withServer(c.server().withPort(0)));
        } catch (RuntimeException e) {
            LoggerFactory.getLogger(SelectorChild.class).error("cannot start the selector", e);
            System.exit(2);
            return;
        }
        System.out.println("URI " + server.uri());
        System.out.flush();
        while (System.in.read() >= 0) {
            // wait for the parent to close stdin
        }
        server.close();
    }
}
