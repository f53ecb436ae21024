package io.tierroute.cli;

import java.time.Duration;
import picocli.CommandLine;

/**
 * A timeout given either as whole seconds ({@code 15}, what {@code snapshots --timeout} always took) or as a duration
 * with its unit ({@code 15s}, {@code 2m}, as every other command's timeouts take it), so neither form is refused.
 */
final class SecondsOrDuration implements CommandLine.ITypeConverter<Duration> {

    @Override
    public Duration convert(String v) {
        String s = v.trim();
        if (!s.isEmpty() && s.chars().allMatch(Character::isDigit)) {
            // 18 digits fit a long; past them "is not a duration" would be wrong. The caller checks its own range.
            if (s.length() > 18) {
                throw new CommandLine.TypeConversionException("'" + v + "' is longer than "
                        + RunLengthOptions.MAX_DURATION.toDays() + " days");
            }
            return Duration.ofSeconds(Long.parseLong(s));
        }
        return new DemoCommand.DurationConverter().convert(v);
    }
}
