package io.tierroute.sim.bench;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The seeds of {@code bench routing --seed}: a comma-separated list of seeds and ascending ranges,
 * {@code 7}, {@code 1,2,5}, {@code 1-10}, {@code 1-3,7}. Seeds are whole numbers ≥ 0, each named once,
 * at most {@link #MAX_SEEDS}; a bad value is an IllegalArgumentException naming {@code --seed} and the value.
 *
 * @param seeds the seeds in the order given
 */
public record SeedList(List<Long> seeds) {

    /** More than a user will wait for; each seed runs every policy at every load. */
    public static final int MAX_SEEDS = 1000;

    private static final Pattern SINGLE = Pattern.compile("\\d+");
    private static final Pattern RANGE = Pattern.compile("(\\d+)-(\\d+)");

    public SeedList {
        seeds = List.copyOf(seeds);
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("at least one seed is required");
        }
    }

    /** One seed. */
    public static SeedList of(long seed) {
        return new SeedList(List.of(seed));
    }

    public static SeedList parse(String text) {
        String all = text == null ? "" : text.strip();
        if (all.isEmpty()) {
            throw bad("a list of seeds and ranges such as 1,2,5 or 1-10", "an empty value");
        }
        List<Long> seeds = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        for (String raw : all.split(",", -1)) {
            String token = raw.strip();
            long lo;
            long hi;
            Matcher range = RANGE.matcher(token);
            if (SINGLE.matcher(token).matches()) {
                lo = hi = number(token);
            } else if (range.matches()) {
                lo = number(range.group(1));
                hi = number(range.group(2));
                if (hi < lo) {
                    throw bad("ascending ranges (low-high)", token);
                }
            } else if (token.matches("-\\d+")) {
                throw bad("whole numbers ≥ 0", token);
            } else {
                throw bad("a list of seeds and ranges such as 1,2,5 or 1-10",
                        token.isEmpty() ? "an empty item in " + all : token);
            }
            if (hi - lo >= MAX_SEEDS - seeds.size()) { // before expanding: 0-9223372036854775806 is not a loop to run
                throw bad("at most " + MAX_SEEDS + " seeds", all);
            }
            for (long s = lo; ; s++) {
                if (!seen.add(s)) {
                    throw bad("a list naming each seed once", all + ": " + s + " twice");
                }
                seeds.add(s);
                if (s == hi) {
                    break;
                }
            }
        }
        return new SeedList(seeds);
    }

    public int size() {
        return seeds.size();
    }

    public long first() {
        return seeds.get(0);
    }

    /** The seeds compactly, runs of consecutive seeds as ranges: 1-3,7. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < seeds.size(); ) {
            int j = i;
            while (j + 1 < seeds.size() && seeds.get(j + 1) == seeds.get(j) + 1) {
                j++;
            }
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(seeds.get(i));
            if (j > i) {
                sb.append(j == i + 1 ? "," : "-").append(seeds.get(j));
            }
            i = j + 1;
        }
        return sb.toString();
    }

    private static long number(String digits) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw bad("whole numbers in [0, " + Long.MAX_VALUE + "]", digits);
        }
    }

    private static IllegalArgumentException bad(String must, String got) {
        return new IllegalArgumentException("--seed must be " + must + " (got " + got + ")");
    }
}
