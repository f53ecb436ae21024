package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ShellWordsTest {

    @Test
    void aPlainWordStaysAndAnythingElseIsSingleQuoted() {
        assertThat(ShellWords.quote("tierroute-fitting-job")).isEqualTo("tierroute-fitting-job");
        assertThat(ShellWords.quote("tierroute-fitting-job (demo)")).isEqualTo("'tierroute-fitting-job (demo)'");
        assertThat(ShellWords.quote("it's")).isEqualTo("'it'\\''s'");
        assertThat(ShellWords.quote("")).isEqualTo("''");
        assertThat(ShellWords.quote("$HOME;rm")).isEqualTo("'$HOME;rm'");
    }
}
