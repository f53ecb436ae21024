package io.tierroute.sim.bench;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's example runs write into the repository (from its root): the root {@code .gitignore} must list each
 * of their output directories, so their reports never show up as new files.
 */
class ReadmeExampleOutputsTest {

    @Test
    void everyExampleOutDirectoryIsIgnored() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        String running = readme.substring(readme.indexOf("## Running"), readme.indexOf("## Measured"));
        List<String> outs = new ArrayList<>();
        Matcher m = Pattern.compile("--out (\\S+)").matcher(running);
        while (m.find()) {
            outs.add(m.group(1));
        }
        assertThat(outs).containsExactly("bench-out", "bench-llmd", "bench-agentic", "bench-seeds", "bench-nvme");
        List<String> ignored = Files.readAllLines(Path.of("..", ".gitignore")).stream().map(String::strip).toList();
        for (String out : outs) {
            assertThat(ignored).as(out).contains("/" + out + "/");
        }
    }
}
