package io.tierroute.dashboards.control;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ControlTextTest {

    @Test
    void plainTextPassesAndEveryKindOfControlIsCaught() {
        assertThat(ControlText.hasControlCharacter("alphaD drifted after the 14:00 deploy (ticket #42) — ünïcode ok"))
                .isFalse();
        for (String bad : new String[] {"a\nb", "a\tb", "a\u001b[2Jb", "a\u007fb", "a\u0085b", "a\u2028b",
                "a\u202eb", "a\u2066b", "a\u200db"}) {
            assertThat(ControlText.hasControlCharacter(bad)).as(ControlText.printable(bad)).isTrue();
        }
    }

    @Test
    void printingEscapesWhatAnotherWriterLeft() {
        assertThat(ControlText.printable("ok\nFAKE\u001b[2J\u202e")).isEqualTo("ok\\nFAKE\\u001b[2J\\u202e");
        assertThat(ControlText.printable("plain")).isEqualTo("plain");
        assertThat(ControlText.printable(null)).isNull();
    }
}
