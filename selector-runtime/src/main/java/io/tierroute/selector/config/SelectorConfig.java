package io.tierroute.selector.config;

import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.scheduling.SelectorSettings;

import java.nio.file.Path;
import java.util.List;

/**
 * A validated configuration file: everything {@code SelectorServer} needs to start.
 *
 * @param source            the file it came from, or null
 * @param selector          the selector's settings (workers, model, routing)
 * @param server            HTTP listener settings
 * @param cost              the configured cost parameters (defaults with the file's overrides)
 * @param parametersFile    the parameter file ({@code POST /v1/params/reload} re-reads it), or null
 * @param initialParameters the parameter set active at start
 * @param indexMaxBlocks    cap on blocks in the prefix index
 * @param indexQueueCapacity commands the index writer queue holds before KV events are refused
 * @param adminTokenEnv     the environment variable that holds the admin bearer token, or null
 * @param access            who may call the read views and the data plane ({@code access:})
 * @param kafka             the {@code kafka:} section (parameter loader, KV events, decisions), or null for none
 * @param warnings          settings the file gives that have no effect as it stands (a feature left off), each a
 *                          sentence naming the key; logged at start, never an error
 */
public record SelectorConfig(Path source, SelectorSettings selector, ServerSettings server, CostParameters cost,
                             Path parametersFile, ParameterSet initialParameters, long indexMaxBlocks,
                             int indexQueueCapacity, String adminTokenEnv, AccessSettings access,
                             KafkaSettings kafka, List<String> warnings) {

    public SelectorConfig {
        warnings = List.copyOf(warnings);
    }

    public SelectorConfig withServer(ServerSettings s) {
        return new SelectorConfig(source, selector, s, cost, parametersFile, initialParameters, indexMaxBlocks,
                indexQueueCapacity, adminTokenEnv, access, kafka, warnings);
    }

    public SelectorConfig withKafka(KafkaSettings k) {
        return new SelectorConfig(source, selector, server, cost, parametersFile, initialParameters, indexMaxBlocks,
                indexQueueCapacity, adminTokenEnv, access, k, warnings);
    }
}
