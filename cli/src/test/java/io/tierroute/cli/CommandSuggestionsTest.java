package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CommandSuggestionsTest {

    private static final List<String> COMMANDS = List.of("demo", "selector", "dashboard", "snapshots", "fleet", "bench");

    @Test
    void swappedMissingAndExtraLettersAreWithinReach() {
        assertThat(CommandSuggestions.near("dmeo", COMMANDS)).containsExactly("demo");
        assertThat(CommandSuggestions.near("selctor", COMMANDS)).containsExactly("selector");
        assertThat(CommandSuggestions.near("snapshot", COMMANDS)).containsExactly("snapshots");
        assertThat(CommandSuggestions.near("flet", COMMANDS)).containsExactly("fleet");
    }

    @Test
    void aPrefixNamesEveryCommandItStarts() {
        assertThat(CommandSuggestions.near("d", COMMANDS)).containsExactly("demo", "dashboard");
    }

    @Test
    void nothingCloseAndOptionsSuggestNothing() {
        assertThat(CommandSuggestions.near("kafka", COMMANDS)).isEmpty();
        assertThat(CommandSuggestions.near("--demo", COMMANDS)).isEmpty();
        assertThat(CommandSuggestions.near("", COMMANDS)).isEmpty();
    }
}
