package io.tierroute.sim.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SeedListTest {

    @Test
    void aSingleSeed() {
        assertThat(SeedList.parse("7").seeds()).containsExactly(7L);
        assertThat(SeedList.parse("0").seeds()).containsExactly(0L);
        assertThat(SeedList.parse(" 9223372036854775807 ").seeds()).containsExactly(Long.MAX_VALUE);
        assertThat(SeedList.parse("7").size()).isEqualTo(1);
    }

    @Test
    void listsRangesAndBothInTheOrderGiven() {
        assertThat(SeedList.parse("1,2,5").seeds()).containsExactly(1L, 2L, 5L);
        assertThat(SeedList.parse("5,1").seeds()).containsExactly(5L, 1L);
        assertThat(SeedList.parse("1-10").seeds()).containsExactlyElementsOf(LongStream.rangeClosed(1, 10).boxed().toList());
        assertThat(SeedList.parse("1-3,7").seeds()).containsExactly(1L, 2L, 3L, 7L);
        assertThat(SeedList.parse("20, 1-2 ,4-4").seeds()).containsExactly(20L, 1L, 2L, 4L);
        assertThat(SeedList.parse("9223372036854775806-9223372036854775807").seeds())
                .containsExactly(Long.MAX_VALUE - 1, Long.MAX_VALUE);
        assertThat(SeedList.parse("0-999").size()).isEqualTo(SeedList.MAX_SEEDS);
    }

    @Test
    void printsCompactly() {
        assertThat(SeedList.parse("1-3,7").toString()).isEqualTo("1-3,7");
        assertThat(SeedList.parse("1,2,3,4").toString()).isEqualTo("1-4");
        assertThat(SeedList.parse("1,2,5,9,8").toString()).isEqualTo("1,2,5,9,8");
        assertThat(new SeedList(List.of(4L)).toString()).isEqualTo("4");
    }

    @Test
    void refusalsNameTheFlagAndTheValue() {
        refused("", "--seed must be a list of seeds and ranges such as 1,2,5 or 1-10 (got an empty value)");
        refused("1,,2", "--seed must be a list of seeds and ranges such as 1,2,5 or 1-10 (got an empty item in 1,,2)");
        refused("1,", "--seed must be a list of seeds and ranges such as 1,2,5 or 1-10 (got an empty item in 1,)");
        refused("x", "--seed must be a list of seeds and ranges such as 1,2,5 or 1-10 (got x)");
        refused("1.5", "--seed must be a list of seeds and ranges such as 1,2,5 or 1-10 (got 1.5)");
        refused("1-2-3", "--seed must be a list of seeds and ranges such as 1,2,5 or 1-10 (got 1-2-3)");
        refused("-1", "--seed must be whole numbers ≥ 0 (got -1)");
        refused("2,-1", "--seed must be whole numbers ≥ 0 (got -1)");
        refused("9223372036854775808", "--seed must be whole numbers in [0, 9223372036854775807] (got 9223372036854775808)");
        refused("5-3", "--seed must be ascending ranges (low-high) (got 5-3)");
        refused("1,1", "--seed must be a list naming each seed once (got 1,1: 1 twice)");
        refused("1-5,3", "--seed must be a list naming each seed once (got 1-5,3: 3 twice)");
        refused("1-3,2-4", "--seed must be a list naming each seed once (got 1-3,2-4: 2 twice)");
        refused("0-1000", "--seed must be at most 1000 seeds (got 0-1000)");
        refused("1-1000,5000", "--seed must be at most 1000 seeds (got 1-1000,5000)");
        assertThat(SeedList.parse("1-999,5000").size()).isEqualTo(1000);
        refused("0-9223372036854775807", "--seed must be at most 1000 seeds (got 0-9223372036854775807)");
        assertThatThrownBy(() -> new SeedList(List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    private static void refused(String text, String message) {
        assertThatThrownBy(() -> SeedList.parse(text)).as(text)
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }
}
