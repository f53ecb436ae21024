package io.tierroute.fitter.forest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regenerates the fixture selector-runtime's {@code ForestOutputModelTest} reads (it cannot depend on
 * the fitter): a small forest trained on {@link SyntheticOutputs}, single-object encoded, and the
 * fitter's own predictions for held-out rows. Every run checks that the committed fixture is exactly
 * what the fitter produces now (training is deterministic), so the two modules cannot drift apart;
 * to rewrite it after a deliberate change:
 * {@code mvn -pl schemas,fitter -am test -Dtest=ForestFixtureTest -Dsurefire.failIfNoSpecifiedTests=false -Dtierroute.writeForestFixture=true}.
 */
class ForestFixtureTest {

    static final double[] QS = {0.05, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99};

    @Test
    void theCommittedFixtureIsWhatTheFitterProducesNow() throws IOException {
        Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        while (root != null && !Files.isDirectory(root.resolve("fitter"))) {
            root = root.getParent();
        }
        assertThat(root).isNotNull();
        Path dir = root.resolve("selector-runtime/src/test/resources/forest");
        ForestConfig cfg = ForestConfig.defaults().withTrees(20).withMaxNodes(32).withSamplesPerLeaf(16).withSeed(77);
        QuantileForest forest = new QuantileForestTrainer(cfg).fit(SyntheticOutputs.rows(71, 5_000, true));
        byte[] model = forest.encode();
        List<String> lines = new ArrayList<>();
        lines.add("inputTokens,model,lora,stepIndex,expectedTool,maxTokens,prefixGroupId,previousStepOutputTokens,"
            + "quantile,expected");
        List<OutputRow> rows = SyntheticOutputs.rows(72, 300, true);
        rows.add(new OutputRow(100, "unknown-model", "unknown-lora", null, "unknown-tool", 4096, null, 123_456_789L,
            null, 0));
        for (OutputRow r0 : rows) {
            // what the selector's OutputFeatures can carry: no hint; prefix group and max_tokens always set
            OutputRow r = new OutputRow(r0.inputTokens(), r0.model(), r0.lora(), r0.stepIndex(), r0.expectedTool(),
                r0.maxTokens(), null, r0.prefixGroupId() == null ? 0L : r0.prefixGroupId(),
                r0.previousStepOutputTokens(), 0);
            for (double q : QS) {
                lines.add(String.join(",", s(r.inputTokens()), s(r.model()), s(r.lora()), s(r.stepIndex()),
                    s(r.expectedTool()), s(r.maxTokens()), s(r.prefixGroupId()), s(r.previousStepOutputTokens()),
                    Double.toString(q), Double.toString(forest.predict(r, q))));
            }
        }
        if (Boolean.getBoolean("tierroute.writeForestFixture")) {
            Files.createDirectories(dir);
            Files.write(dir.resolve("qrf-fixture.bin"), model);
            Files.write(dir.resolve("qrf-fixture-expected.csv"), lines);
            System.out.printf("wrote %s: %d trees, %d leaves, %,d bytes; %d expected predictions%n", dir,
                forest.numTrees(), forest.numLeaves(), model.length, lines.size() - 1);
        }
        String regenerate = "the committed fixture differs from what the fitter produces; if the change is "
            + "deliberate, rerun this test with -Dtierroute.writeForestFixture=true and commit the files";
        assertThat(Files.readAllBytes(dir.resolve("qrf-fixture.bin"))).as(regenerate).isEqualTo(model);
        assertThat(Files.readAllLines(dir.resolve("qrf-fixture-expected.csv"))).as(regenerate).isEqualTo(lines);
    }

    private static String s(Object o) {
        return o == null ? "" : o.toString();
    }
}
