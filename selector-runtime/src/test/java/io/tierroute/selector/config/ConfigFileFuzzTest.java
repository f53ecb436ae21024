package io.tierroute.selector.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Fuzzes the selector's YAML config loader, starting from the shipped examples. The property: a
 * document either loads into a {@link SelectorConfig} or is refused with a {@link ConfigException}
 * whose message names the problem; anything else escaping the loader, or a hang, is a finding.
 */
class ConfigFileFuzzTest {

    private static final Path EXAMPLES = Path.of("..", "examples");
    private static final String[] SEEDS = read("selector.yaml", "selector-64.yaml", "selector-kafka.yaml");

    private static String[] read(String... names) {
        String[] out = new String[names.length];
        try {
            for (int i = 0; i < names.length; i++) {
                out[i] = Files.readString(EXAMPLES.resolve(names[i]));
            }
        } catch (IOException e) {
            throw new IllegalStateException("the example configs are the fuzzer's seeds", e);
        }
        return out;
    }

    @FuzzTest(maxExecutions = 10_000)
    void loadsOrExplains(FuzzedDataProvider data) {
        String yaml;
        if (data.consumeBoolean()) {
            StringBuilder b = new StringBuilder(SEEDS[data.consumeInt(0, SEEDS.length - 1)]);
            int edits = data.consumeInt(1, 4);
            for (int i = 0; i < edits && b.length() > 0; i++) {
                int at = data.consumeInt(0, b.length() - 1);
                int len = data.consumeInt(0, Math.min(16, b.length() - at));
                b.replace(at, at + len, data.consumeString(24));
            }
            yaml = b.toString();
        } else {
            yaml = data.consumeRemainingAsString();
        }
        try {
            SelectorConfig config = ConfigLoader.parse(yaml, EXAMPLES);
            assertThat(config.selector()).isNotNull();
            assertThat(config.initialParameters()).isNotNull();
        } catch (ConfigException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
    }
}
