package io.tierroute.sim.policy;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** fleet-sim/README.md's policy table has a row for every policy {@code --list-policies} names, and no other. */
class PolicyTableTest {

    /** On the old README, sglang-cache-aware-rust and dynamo-approx were registered and listed but documented nowhere. */
    @Test
    void everyRegisteredPolicyHasItsRow() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        int start = readme.indexOf("| policy | what it runs |");
        assertThat(start).as("the table").isNotNegative();
        String table = readme.substring(start, readme.indexOf("\n\n", start));
        Matcher row = Pattern.compile("(?m)^\\| `([a-z0-9-]+)` \\| (.+) \\|$").matcher(table);
        List<String> rows = row.results().map(r -> r.group(1)).toList();
        assertThat(rows).containsExactlyElementsOf(new PolicyRegistry().names());
        assertThat(table).containsPattern("\\| `sglang-cache-aware-rust` \\| .*Rust defaults.*not one of the seven peers \\|")
                .containsPattern("\\| `dynamo-approx` \\| .*approximate mode.*not one of the seven peers \\|");
    }
}
