package io.tierroute.jobs.fit;

import io.tierroute.fitter.kvwait.KvWaitFit;
import io.tierroute.fitter.kvwait.KvWaitFitter;
import io.tierroute.fitter.kvwait.KvWaitRow;
import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * The admission wait's rows of one scope's newest joined rows, in memory, at most as many as the replay buffer
 * keeps ({@code sampleRows}): not state of its own, rebuilt with the estimators from the replay buffer after a
 * restore. {@link KvWaitFitter} is a batch fit (two passes), so each snapshot refits this sample.
 */
final class KvWaitSample {
    private final int bound;
    private final ArrayDeque<KvWaitRow> rows = new ArrayDeque<>();

    KvWaitSample(int bound) {
        this.bound = Math.max(1, bound);
    }

    /** Adds a row; null (a joined row restored from state written before these fields) is skipped. */
    void add(KvWaitRow row) {
        if (row == null) {
            return;
        }
        if (rows.size() == bound) {
            rows.removeFirst();
        }
        rows.addLast(row);
    }

    int size() {
        return rows.size();
    }

    KvWaitFit fit() {
        return KvWaitFitter.fit(new ArrayList<>(rows));
    }
}
