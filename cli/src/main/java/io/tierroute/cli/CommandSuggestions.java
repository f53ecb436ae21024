package io.tierroute.cli;

import org.apache.commons.text.similarity.LevenshteinDistance;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * "Did you mean" for a mistyped command: the commands within two edits of what was typed, or that
 * start with it. picocli's own suggestions compare letter pairs and miss swapped letters
 * ({@code dmeo} shares no pair with {@code demo}).
 */
final class CommandSuggestions {

    private static final LevenshteinDistance WITHIN_TWO_EDITS = new LevenshteinDistance(2);

    private CommandSuggestions() {
    }

    /** The names in {@code commands} close to {@code typed}, in the given order. */
    static List<String> near(String typed, Collection<String> commands) {
        List<String> out = new ArrayList<>();
        if (typed.isEmpty() || typed.startsWith("-")) {
            return out; // an option in a command's place: no command resembles it
        }
        for (String name : commands) {
            if (name.startsWith(typed) || WITHIN_TWO_EDITS.apply(typed, name) >= 0) {
                out.add(name);
            }
        }
        return out;
    }
}
