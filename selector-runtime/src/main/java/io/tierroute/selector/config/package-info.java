/**
 * The selector's configuration file: YAML or JSON → {@link io.tierroute.selector.config.SelectorConfig}
 * (selector settings, server settings, the initial parameter set).
 *
 * <p>File map: {@code ConfigLoader} (the schema: every key, its default and bounds; documented for
 * users in {@code examples/selector.yaml}), {@code ConfigNode} (a tree node that knows its path, so
 * every error names the field, rejects unknown keys and parses durations), {@code Documents} (YAML/JSON
 * reading), {@code ConfigException} (path + problem), {@code ServerSettings} / {@code TlsSettings} /
 * {@code AccessSettings} / {@code KafkaSettings} (the sections), {@code KafkaPropertiesFile}
 * ({@code kafka.propertiesFile}). {@code params.ParameterFile} uses the same
 * machinery for parameter files.
 */
package io.tierroute.selector.config;
