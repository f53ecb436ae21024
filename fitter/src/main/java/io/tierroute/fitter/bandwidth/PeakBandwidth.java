package io.tierroute.fitter.bandwidth;

import io.tierroute.fitter.Estimate;
import io.tierroute.fitter.QualityKind;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.OptionalDouble;

/**
 * Peak observed bandwidth of one link: the largest bytes/Δt over a sliding event-time window, kept as
 * one maximum per time bucket (so memory is window/bucket entries and old peaks age out: this is the
 * "decay"). The quality figure is the spread (sample standard deviation) of the three largest bucket
 * maxima: small when the link repeatedly tops out at the same rate (a real ceiling), large when the
 * peak is one burst. Samples shorter than minPeakIntervalMs are ignored. Not thread-safe.
 */
public final class PeakBandwidth {
    private static final class Bucket {
        final long index;
        double max;
        long count;
        long firstMs;
        long lastMs;

        Bucket(long index) {
            this.index = index;
        }
    }

    private final RhoConfig config;
    private final ArrayDeque<Bucket> buckets = new ArrayDeque<>();

    public PeakBandwidth(RhoConfig config) {
        this.config = config;
    }

    /** Offers one interval; returns false (ignored) if it is too short, invalid or older than the window. */
    public boolean update(long endTimeMs, long intervalMs, long bytes) {
        if (intervalMs <= 0 || bytes < 0 || intervalMs < config.minPeakIntervalMs()) {
            return false;
        }
        double rate = bytes * 1000.0 / intervalMs;
        long index = Math.floorDiv(endTimeMs, config.peakBucketMs());
        Bucket last = buckets.peekLast();
        if (last != null && index < last.index) {
            // late sample: fold it into its bucket if still in the window
            for (Iterator<Bucket> it = buckets.descendingIterator(); it.hasNext();) {
                Bucket b = it.next();
                if (b.index == index) {
                    add(b, rate, endTimeMs);
                    return true;
                }
                if (b.index < index) {
                    break;
                }
            }
            return false;
        }
        if (last == null || index > last.index) {
            last = new Bucket(index);
            buckets.addLast(last);
        }
        add(last, rate, endTimeMs);
        long oldest = index - config.peakWindowMs() / config.peakBucketMs();
        while (!buckets.isEmpty() && buckets.peekFirst().index <= oldest) {
            buckets.removeFirst();
        }
        return true;
    }

    private static void add(Bucket b, double rate, long endTimeMs) {
        if (b.count == 0) {
            b.firstMs = endTimeMs;
            b.lastMs = endTimeMs;
        }
        b.max = Math.max(b.max, rate);
        b.count++;
        b.firstMs = Math.min(b.firstMs, endTimeMs);
        b.lastMs = Math.max(b.lastMs, endTimeMs);
    }

    public boolean hasValue() {
        return !buckets.isEmpty();
    }

    /** Peak rate in the window, bytes/s (0 when empty). */
    public double peak() {
        double max = 0;
        for (Bucket b : buckets) {
            max = Math.max(max, b.max);
        }
        return max;
    }

    /** The peak as an estimate, bytes/s; unfitted 0 when empty. */
    public Estimate estimate() {
        if (buckets.isEmpty()) {
            return Estimate.unfitted(0);
        }
        double[] maxima = new double[buckets.size()];
        int i = 0;
        long count = 0;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (Bucket b : buckets) {
            maxima[i++] = b.max;
            count += b.count;
            first = Math.min(first, b.firstMs);
            last = Math.max(last, b.lastMs);
        }
        Arrays.sort(maxima);
        int k = Math.min(3, maxima.length);
        double spread = 0;
        if (k >= 2) {
            double mean = 0;
            for (int j = maxima.length - k; j < maxima.length; j++) {
                mean += maxima[j] / k;
            }
            double ss = 0;
            for (int j = maxima.length - k; j < maxima.length; j++) {
                ss += (maxima[j] - mean) * (maxima[j] - mean);
            }
            spread = Math.sqrt(ss / (k - 1));
        }
        // exclusive end, saturated as EventWindow's: a sample at Long.MAX_VALUE must not wrap to before its start
        return new Estimate(maxima[maxima.length - 1], OptionalDouble.empty(), count, spread,
            QualityKind.STD_ERROR, first, last == Long.MAX_VALUE ? last : last + 1);
    }
}
