package io.tierroute.selector.kafka;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RetainedRecordsTest {

    @Test
    void evictsTheLeastRecentlyUsedBeyondTheCount() {
        RetainedRecords r = new RetainedRecords(2, 1_000);
        r.put(1, new byte[10]);
        r.put(2, new byte[10]);
        assertThat(r.get(1)).as("1 is now the most recently used").isNotNull();
        r.put(3, new byte[10]);
        assertThat(r.get(2)).as("2 was the least recently used").isNull();
        assertThat(r.get(1)).isNotNull();
        assertThat(r.get(3)).isNotNull();
        assertThat(r.size()).isEqualTo(2);
    }

    @Test
    void evictsBeyondTheBytesButKeepsTheNewestWhateverItsSize() {
        RetainedRecords r = new RetainedRecords(10, 100);
        r.put(1, new byte[60]);
        r.put(2, new byte[60]);
        assertThat(r.get(1)).as("120 bytes > 100: the older goes").isNull();
        r.put(3, new byte[500]);
        assertThat(r.size()).as("a record larger than the budget is still kept alone").isEqualTo(1);
        assertThat(r.get(3)).hasSize(500);
    }

    @Test
    void replacingAndRemovingKeepTheByteCountRight() {
        RetainedRecords r = new RetainedRecords(10, 100);
        r.put(1, new byte[90]);
        r.put(1, new byte[10]); // replaced: 10 bytes held, not 100
        r.put(2, new byte[80]);
        assertThat(r.get(1)).as("10 + 80 fits the budget").hasSize(10);
        r.remove(2);
        r.put(3, new byte[85]);
        assertThat(r.get(1)).as("10 + 85 fits once 2's 80 bytes are gone").isNotNull();
        r.clear();
        assertThat(r.size()).isZero();
        r.put(4, new byte[60]);
        r.put(5, new byte[40]);
        assertThat(r.get(4)).as("60 + 40 fits: no bytes left over from before the clear").isNotNull();
        assertThat(r.size()).isEqualTo(2);
    }
}
