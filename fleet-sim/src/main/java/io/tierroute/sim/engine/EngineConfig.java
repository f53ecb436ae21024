package io.tierroute.sim.engine;

/**
 * The simulated fleet: N identical workers. Build with {@link #builder()}; every default is documented
 * at its field and describes one Qwen3-32B replica on 2×H100 (TP2) with vLLM-like settings.
 *
 * @param workers           number of engine workers
 * @param model             model name (salts the block hashes)
 * @param blockSize         tokens per KV block; must equal the workload's block size
 * @param bytesPerToken     KV bytes per token
 * @param hbmCapacityTokens HBM KV capacity per worker, tokens (rounded down to blocks)
 * @param cpuCapacityTokens CPU-tier KV capacity per worker, tokens; 0 = no CPU tier
 * @param pcieBytesPerSecond bandwidth of the worker's one shared host→device link
 * @param nvmeCapacityTokens NVMe-tier KV capacity per worker, tokens; 0 = no NVMe tier. It receives the CPU
 *                          tier's evictions, so it needs a CPU tier
 * @param nvmeBytesPerSecond read bandwidth of the worker's NVMe drive, shared by its loads in flight
 * @param maxBatchedTokens  per-step token budget (vLLM {@code max_num_batched_tokens})
 * @param maxRunning        running batch limit (vLLM {@code max_num_seqs})
 */
public record EngineConfig(int workers, String model, int blockSize, double bytesPerToken, long hbmCapacityTokens,
                           long cpuCapacityTokens, double pcieBytesPerSecond, long nvmeCapacityTokens,
                           double nvmeBytesPerSecond, int maxBatchedTokens, int maxRunning) {

    public EngineConfig {
        if (workers <= 0) throw new IllegalArgumentException("workers must be > 0, got " + workers);
        if (blockSize <= 0) throw new IllegalArgumentException("blockSize must be > 0, got " + blockSize);
        if (!(bytesPerToken > 0)) throw new IllegalArgumentException("bytesPerToken must be > 0");
        if (hbmCapacityTokens < blockSize) {
            throw new IllegalArgumentException("HBM capacity " + hbmCapacityTokens + " tokens is below one block of " + blockSize);
        }
        if (cpuCapacityTokens < 0) throw new IllegalArgumentException("cpuCapacityTokens must be ≥ 0");
        if (!(pcieBytesPerSecond > 0)) throw new IllegalArgumentException("pcieBytesPerSecond must be > 0");
        if (nvmeCapacityTokens < 0) throw new IllegalArgumentException("nvmeCapacityTokens must be ≥ 0");
        if (!(nvmeBytesPerSecond > 0)) throw new IllegalArgumentException("nvmeBytesPerSecond must be > 0");
        if (nvmeCapacityTokens / blockSize > 0 && cpuCapacityTokens / blockSize == 0) {
            throw new IllegalArgumentException("an NVMe tier receives the CPU tier's evictions: it needs a CPU tier "
                    + "(a CPU capacity of at least one block, " + blockSize + " tokens)");
        }
        if (maxBatchedTokens <= 0 || maxRunning <= 0) throw new IllegalArgumentException("limits must be > 0");
    }

    public long hbmCapacityBlocks() {
        return hbmCapacityTokens / blockSize;
    }

    public long cpuCapacityBlocks() {
        return cpuCapacityTokens / blockSize;
    }

    public boolean hasCpuTier() {
        return cpuCapacityBlocks() > 0;
    }

    public long nvmeCapacityBlocks() {
        return nvmeCapacityTokens / blockSize;
    }

    public boolean hasNvmeTier() {
        return nvmeCapacityBlocks() > 0;
    }

    public static Builder builder() {
        return new Builder();
    }

    public static final class Builder {
        private int workers = 8;
        private String model = "Qwen3-32B";
        private int blockSize = 512;
        /** Qwen3-32B: 64 layers × 8 KV heads × 128 dims × 2 (K, V) × 2 bytes = 256 KiB. */
        private double bytesPerToken = 64 * 8 * 128 * 2 * 2;
        /** 64 GiB of KV: 2×80 GB at 0.9 utilisation minus 64 GB of weights and activations. */
        private long hbmCapacityTokens = 262_144;
        /** 256 GiB of host RAM for KV offload. */
        private long cpuCapacityTokens = 1_048_576;
        /** PCIe Gen5 ×16. */
        private double pcieBytesPerSecond = 64e9;
        /** No NVMe tier unless asked for. */
        private long nvmeCapacityTokens = 0;
        /** One PCIe Gen4 NVMe drive's sequential read (DESIGN §5's BW_t for NVMe). */
        private double nvmeBytesPerSecond = 7e9;
        private int maxBatchedTokens = 8192;
        private int maxRunning = 256;

        public Builder workers(int v) { workers = v; return this; }
        public Builder blockSize(int v) { blockSize = v; return this; }
        public Builder hbmCapacityTokens(long v) { hbmCapacityTokens = v; return this; }
        public Builder cpuCapacityTokens(long v) { cpuCapacityTokens = v; return this; }
        public Builder pcieBytesPerSecond(double v) { pcieBytesPerSecond = v; return this; }
        public Builder nvmeCapacityTokens(long v) { nvmeCapacityTokens = v; return this; }
        public Builder nvmeBytesPerSecond(double v) { nvmeBytesPerSecond = v; return this; }
        public Builder maxBatchedTokens(int v) { maxBatchedTokens = v; return this; }
        public Builder maxRunning(int v) { maxRunning = v; return this; }

        public EngineConfig build() {
            return new EngineConfig(workers, model, blockSize, bytesPerToken, hbmCapacityTokens, cpuCapacityTokens,
                    pcieBytesPerSecond, nvmeCapacityTokens, nvmeBytesPerSecond, maxBatchedTokens, maxRunning);
        }
    }
}
