package io.tierroute.jobs.publish;

/**
 * A version of a scope to delete from {@code tierroute.params}: a null value under its key, which compaction turns into
 * nothing. Emitted by the fitting operator's retention ({@code --params-retain-versions}).
 *
 * @param scope   the scope
 * @param version the version deleted
 */
public record ParamsTombstone(String scope, long version) {}
