package io.tierroute.schemas;

import io.tierroute.schemas.avro.AllCleared;
import io.tierroute.schemas.avro.BlockMoved;
import io.tierroute.schemas.avro.BlockRemoved;
import io.tierroute.schemas.avro.BlockStored;
import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.CostBreakdown;
import io.tierroute.schemas.avro.CostFeatures;
import io.tierroute.schemas.avro.DeadLetter;
import io.tierroute.schemas.avro.EngineTelemetry;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.KvEventBatch;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.PredictionSource;
import io.tierroute.schemas.avro.QualityKind;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.RequestFeatures;
import io.tierroute.schemas.avro.RequestStatus;
import io.tierroute.schemas.avro.RoutingDecision;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.avro.TierLinkSample;
import io.tierroute.schemas.avro.TierTokens;
import io.tierroute.schemas.avro.TierTransfer;
import io.tierroute.schemas.avro.WorkerTierRho;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.specific.SpecificRecord;

/** Realistic instances of every record type, shared by the tests. */
final class Samples {
  static final long T0 = 1_764_460_800_000L; // 2025-11-30T00:00:00Z

  private Samples() {}

  static List<SpecificRecord> all() {
    return List.of(kvEventBatch(), engineTelemetry(), completionLog(), routingDecision(),
        parameterSnapshot(true), parameterSnapshot(false), snapshotControl(), deadLetter(), replicaAdmitted(),
        replicaFirstToken());
  }

  static KvEventBatch kvEventBatch() {
    return KvEventBatch.newBuilder()
        .setWorker("vllm-h100-03")
        .setModel("Qwen/Qwen3-32B")
        .setLora("sql-agent-v2")
        .setNamespace(null)
        .setSequence(48_213L)
        .setTimestampMs(T0 + 1_250)
        .setEvents(List.of(
            BlockStored.newBuilder().setTier(Tier.HBM).setParentHash(null)
                .setBlockHashes(List.of(0x1f2e3d4c5b6a7988L, -0x5a5a5a5a5a5a5a5bL, 42L)).build(),
            BlockStored.newBuilder().setTier(Tier.HBM).setParentHash(42L)
                .setBlockHashes(List.of(Long.MAX_VALUE, Long.MIN_VALUE)).build(),
            BlockMoved.newBuilder().setFromTier(Tier.HBM).setToTier(Tier.CPU)
                .setBlockHashes(List.of(0x1f2e3d4c5b6a7988L)).build(),
            BlockRemoved.newBuilder().setTier(Tier.NVME).setBlockHashes(List.of(7L, 8L, 9L)).build(),
            AllCleared.newBuilder().build(),
            BlockStored.newBuilder().setTier(Tier.REMOTE).setParentHash(-1L)
                .setBlockHashes(List.of()).build()))
        .build();
  }

  static EngineTelemetry engineTelemetry() {
    return EngineTelemetry.newBuilder()
        .setWorker("vllm-h100-03").setScope("default").setEngineType("vllm").setHardwarePool("h100-80g")
        .setTimestampMs(T0 + 2_000).setIntervalMs(1_003)
        .setWaitingRequests(3).setRunningRequests(41)
        .setKvUsedBlocks(17_210).setKvCapacityBlocks(20_480).setBlockSizeTokens(16)
        .setLinks(List.of(
            TierLinkSample.newBuilder().setTier(Tier.CPU).setBytesMoved(9_663_676_416L).setIntervalMs(1_003).build(),
            TierLinkSample.newBuilder().setTier(Tier.NVME).setBytesMoved(0L).setIntervalMs(1_003).build()))
        .setPrefillTokens(48_112).setPrefillBusyUs(412_907)
        .setDecodeSteps(61).setDecodeBusyUs(585_330)
        .build();
  }

  static CompletionLog completionLog() {
    return CompletionLog.newBuilder()
        .setRequestId("req-7f3c9a2e").setWorker("vllm-h100-03").setScope("default").setModel("Qwen/Qwen3-32B")
        .setArrivalTimeMs(T0 + 10_000).setDispatchedTimeMs(T0 + 10_001)
        .setFirstTokenTimeMs(T0 + 10_184).setFinishedTimeMs(T0 + 19_900)
        .setQueueWaitUs(42_310).setPrefillUs(126_004).setTierLoadUs(13_977).setDecodeUs(9_716_220)
        .setTtftUs(184_402L)
        .setInputTokens(8_000).setOutputTokens(512)
        .setCachedTokens(List.of(
            TierTokens.newBuilder().setTier(Tier.HBM).setTokens(4_096).build(),
            TierTokens.newBuilder().setTier(Tier.CPU).setTokens(3_404).build()))
        .setStatus(RequestStatus.OK).setStatusDetail(null)
        .setWorkflowId("wf-2291").setStepId("step-4")
        .build();
  }

  static CompletionLog failedCompletion() {
    return CompletionLog.newBuilder(completionLog())
        .setRequestId("req-dead").setFirstTokenTimeMs(null).setTtftUs(null).setDecodeUs(0).setOutputTokens(0)
        .setStatus(RequestStatus.FAILED).setStatusDetail("CUDA error: an illegal memory access")
        .setWorkflowId(null).setStepId(null).setCachedTokens(List.of())
        .build();
  }

  static RoutingDecision routingDecision() {
    return RoutingDecision.newBuilder()
        .setRequestId("req-7f3c9a2e").setSelectorId("selector-1").setTimestampMs(T0 + 10_001)
        .setScope("default").setSnapshotVersion(17).setChosenWorker("vllm-h100-03")
        .setCandidateCount(8).setExplored(false)
        .setCost(CostBreakdown.newBuilder()
            .setPrefillUs(500.0).setDecodeUs(10_025.0).setKvUs(0.0).setTierUs(85.714285)
            .setHolUs(0.0).setWorkflowBonusUs(0.0).setToolsBonusUs(0.0).setTotalUs(10_610.714285).build())
        .setFeatures(CostFeatures.newBuilder()
            .setPEffTokens(500).setRecomputeQuadratic((8000.0 * 8000 - 7500.0 * 7500) / 2)
            .setInflightDecodeTokens(200.0).setInflightDecodeQuadratic(25_000.0).setKvOverflowTokens(0.0)
            .setTierTransfers(List.of(
                TierTransfer.newBuilder().setTier(Tier.CPU).setHitTokens(7_500).setTransferUs(85.714285).build()))
            .setQueueLength(0).setAffinityDecay(Math.exp(-30.0 / 120))
            .setIdleSinceLastStepMs(30_000L).setExpectedToolHitFraction(0.5).build())
        .setRequest(RequestFeatures.newBuilder()
            .setIsl(8_000).setModel("Qwen/Qwen3-32B").setLora(null).setWorkflowId("wf-2291")
            .setStepIndex(4).setExpectedTool("sql_query").setMaxTokens(2_048).setOutputHint(null)
            .setPrefixGroupId(0x1f2e3d4c5b6a7988L).setPreviousStepOutputTokens(431)
            .setPredictedOutputTokens(500.0).setPredictionSource(PredictionSource.QUANTILE_MODEL).build())
        .build();
  }

  static FittedValue fitted(double value, long samples, double quality, QualityKind kind, Double stdError) {
    return FittedValue.newBuilder().setValue(value).setSamples(samples).setQuality(quality)
        .setQualityKind(kind).setStdError(stdError)
        .setWindowStartMs(kind == QualityKind.NONE ? 0 : T0)
        .setWindowEndMs(kind == QualityKind.NONE ? 0 : T0 + 600_000).build();
  }

  static FittedValue unfitted(double value) {
    return fitted(value, 0, 0, QualityKind.NONE, null);
  }

  static ParameterSnapshot parameterSnapshot(boolean withModel) {
    return ParameterSnapshot.newBuilder()
        .setScope("default").setVersion(18).setParentVersion(17L).setProducer("fit-cost-params")
        .setCreatedAtMs(T0 + 600_500)
        .setStatus(withModel ? SnapshotStatus.ACCEPTED : SnapshotStatus.REJECTED)
        .setRejectReasons(withModel ? List.of()
            : List.of("alphaD jumped 4.2x against v17 with 312 samples", "lambda std error 0.03 > 0.01"))
        .setAlphaP(fitted(0.97, 48_210, 0.93, QualityKind.R2, 0.004))
        .setAlphaP2(fitted(1.2e-6, 48_210, 0.93, QualityKind.R2, 3e-7))
        .setAlphaD(fitted(51.3, 21_003, 0.0021, QualityKind.STD_ERROR, 0.0021))
        .setAlphaD2(fitted(0.00098, 21_003, 0.81, QualityKind.R2, 0.0001))
        .setAlphaT(fitted(1.08, 9_911, 0.77, QualityKind.R2, 0.02))
        .setAlphaHo(unfitted(100.0))
        .setQSlack(unfitted(4.0))
        .setAlphaWf(fitted(5_000.0, 3_020, 0.66, QualityKind.R2, 120.0))
        .setLambda(fitted(1.0 / 120, 3_020, 0.0004, QualityKind.STD_ERROR, 0.0004))
        .setAlphaWf2(unfitted(0.0))
        .setBandwidths(List.of(
            TierBandwidth.newBuilder().setTier(Tier.CPU).setBytesPerSecond(fitted(6.1e10, 600, 0, QualityKind.NONE, null)).build(),
            TierBandwidth.newBuilder().setTier(Tier.NVME).setBytesPerSecond(unfitted(7e9)).build(),
            TierBandwidth.newBuilder().setTier(Tier.REMOTE).setBytesPerSecond(unfitted(2.5e10)).build()))
        .setRho(List.of(
            WorkerTierRho.newBuilder().setWorker("vllm-h100-03").setTier(Tier.CPU)
                .setRho(fitted(0.31, 600, 0.02, QualityKind.STD_ERROR, 0.02)).build(),
            WorkerTierRho.newBuilder().setWorker("vllm-h100-04").setTier(Tier.CPU)
                .setRho(fitted(0.95, 600, 0.01, QualityKind.STD_ERROR, 0.01)).build()))
        .setQuantileModel(withModel ? tinyForest() : null)
        .build();
  }

  /** Two trees: a split on isl and a stump. */
  static QuantileForestModel tinyForest() {
    return QuantileForestModel.newBuilder()
        .setFeatureNames(List.of("isl", "maxTokens", "expectedTool"))
        .setFeatureLevels(Map.of("expectedTool", List.of("sql_query", "web_search")))
        .setTargetName("outputTokens").setTrainingRows(1_000).setMaxSamplesPerLeaf(4)
        .setTreeRoots(List.of(0, 3))
        .setNodeSplitFeature(List.of(0, -1, -1, -1))
        .setNodeThreshold(List.of(4096.0, 0.0, 0.0, 0.0))
        .setNodeLeft(List.of(1, -1, -1, -1))
        .setNodeRight(List.of(2, -1, -1, -1))
        .setNodeLeafId(List.of(-1, 0, 1, 2))
        .setLeafRows(List.of(3, 640, 1_000))
        .setLeafSampleOffsets(List.of(0, 3, 7, 11))
        .setLeafSamples(List.of(12f, 40f, 96f, 80f, 210f, 380f, 1_020f, 30f, 150f, 300f, 900f))
        .build();
  }

  /**
   * A forest of the size the schema doc recommends for 50k training rows: 50 trees of 256 leaves
   * (511 nodes) each, 8 sample values per leaf, 12 features.
   */
  static QuantileForestModel bigForest(Random rnd) {
    int trees = 50;
    int leavesPerTree = 256;
    int k = 8;
    List<Integer> roots = new ArrayList<>();
    List<Integer> feature = new ArrayList<>();
    List<Double> threshold = new ArrayList<>();
    List<Integer> left = new ArrayList<>();
    List<Integer> right = new ArrayList<>();
    List<Integer> leafId = new ArrayList<>();
    List<Integer> leafRows = new ArrayList<>();
    List<Integer> offsets = new ArrayList<>();
    List<Float> samples = new ArrayList<>();
    offsets.add(0);
    int leaf = 0;
    for (int t = 0; t < trees; t++) {
      int base = feature.size();
      roots.add(base);
      int nodes = 2 * leavesPerTree - 1; // complete binary tree in heap order
      for (int i = 0; i < nodes; i++) {
        if (i < leavesPerTree - 1) {
          feature.add(rnd.nextInt(12));
          threshold.add(rnd.nextDouble() * 32_768);
          left.add(base + 2 * i + 1);
          right.add(base + 2 * i + 2);
          leafId.add(-1);
        } else {
          feature.add(-1);
          threshold.add(0.0);
          left.add(-1);
          right.add(-1);
          leafId.add(leaf++);
          leafRows.add(150 + rnd.nextInt(100));
          float[] v = new float[k];
          for (int j = 0; j < k; j++) {
            v[j] = rnd.nextInt(8_192);
          }
          Arrays.sort(v);
          for (float f : v) {
            samples.add(f);
          }
          offsets.add(samples.size());
        }
      }
    }
    List<String> names = new ArrayList<>();
    for (int f = 0; f < 12; f++) {
      names.add("feature_" + f);
    }
    return QuantileForestModel.newBuilder()
        .setFeatureNames(names).setFeatureLevels(Map.of()).setTargetName("outputTokens")
        .setTrainingRows(50_000).setMaxSamplesPerLeaf(k).setTreeRoots(roots)
        .setNodeSplitFeature(feature).setNodeThreshold(threshold).setNodeLeft(left).setNodeRight(right)
        .setNodeLeafId(leafId).setLeafRows(leafRows).setLeafSampleOffsets(offsets).setLeafSamples(samples)
        .build();
  }

  static SnapshotControl snapshotControl() {
    return SnapshotControl.newBuilder()
        .setScope("default").setAction(ControlAction.PIN).setVersion(15L)
        .setReason("v17 doubled alphaD after the NVMe firmware update; rolling back")
        .setActor("alice@ops").setTimestampMs(T0 + 700_000).setSequence(9)
        .build();
  }

  static DeadLetter deadLetter() {
    return DeadLetter.newBuilder()
        .setSourceTopic(Topics.TELEMETRY).setPartition(3).setOffset(1_884_211)
        .setKey(ByteBuffer.wrap("vllm-h100-03".getBytes(StandardCharsets.UTF_8)))
        .setValue(ByteBuffer.wrap(new byte[] {(byte) 0xC3, 0x01, 1, 2, 3}))
        .setErrorType("CorruptRecordException").setReason("truncated header: 5 bytes")
        .setConsumer("fit-cost-params").setTimestampMs(T0 + 3_000)
        .build();
  }

  static io.tierroute.schemas.avro.ReplicaSyncMessage replicaAdmitted() {
    return io.tierroute.schemas.avro.ReplicaSyncMessage.newBuilder()
        .setReplicaId("7c0b1e52-3f7e-4f4a-9d59-8c3f0f5e2a11").setSelectorId("selector-0").setScope("default")
        .setTimestampMs(T0 + 4_000).setRequestId("req-000042")
        .setMessage(io.tierroute.schemas.avro.ReplicaAdmitted.newBuilder()
            .setWorker("vllm-h100-03").setPromptTokens(9_216).setPredictedOutputTokens(312)
            .setPrefillTokens(1_024).setTierTokens(List.of(0L, 4_096L, 0L, 0L))
            .setPrefixMarks(List.of(Long.MIN_VALUE, -3L, 77L, Long.MAX_VALUE)).setPrefixMarkTokens(2_048)
            .setWorkflowId("wf-17").setExpectedNextTools(List.of("sql.query", "http.get"))
            .build())
        .build();
  }

  static io.tierroute.schemas.avro.ReplicaSyncMessage replicaFirstToken() {
    return io.tierroute.schemas.avro.ReplicaSyncMessage.newBuilder()
        .setReplicaId("0d5f6a3e-1c2b-4a8e-b1f0-2e9d7c6b5a40").setSelectorId("selector-1").setScope("default")
        .setTimestampMs(T0 + 4_250).setRequestId("req-000042")
        .setMessage(io.tierroute.schemas.avro.ReplicaRequestEvent.newBuilder()
            .setType(io.tierroute.schemas.avro.ReplicaEventType.FIRST_TOKEN).setTokens(1).build())
        .build();
  }
}
