package io.tierroute.selector.params;

import io.tierroute.selector.config.ConfigException;
import io.tierroute.selector.protocol.Tier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ParameterFileTest {

    @TempDir
    Path dir;

    private static final List<String> WORKERS = List.of("w0", "w1", "w2");

    private ParameterSet load(String name, String text) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return ParameterFile.load(f, WORKERS, CostParameters.DEFAULTS);
    }

    @Test
    void readsEveryField() throws Exception {
        ParameterSet ps = load("p.yaml", """
                scope: pool-a
                version: 12
                parameters: {alphaP: 2, lambda: 0.01, rhoThreshold: 0.9}
                outputQuantile: 0.8
                rho: {w1: {cpu: 0.3, nvme: 0.1}, w2: {remote: 1}}
                bandwidth: {cpu: 50e9, nvme: 6000000000}
                """);
        assertThat(ps.scope()).isEqualTo("pool-a");
        assertThat(ps.version()).isEqualTo(12);
        assertThat(ps.source()).endsWith("p.yaml");
        assertThat(ps.cost().alphaP()).isEqualTo(2);
        assertThat(ps.cost().lambda()).isEqualTo(0.01);
        assertThat(ps.cost().rhoThreshold()).isEqualTo(0.9);
        assertThat(ps.cost().alphaD()).isEqualTo(50); // default kept
        assertThat(ps.outputQuantile()).isEqualTo(0.8);
        assertThat(ps.rho(1, Tier.CPU.ordinal())).isEqualTo(0.3);
        assertThat(ps.rho(1, Tier.NVME.ordinal())).isEqualTo(0.1);
        assertThat(ps.rho(2, Tier.REMOTE.ordinal())).isEqualTo(1);
        assertThat(ps.rho(0, Tier.CPU.ordinal())).isZero();
        assertThat(ps.bandwidthOverride(Tier.CPU.ordinal())).isEqualTo(50e9);
        assertThat(ps.bandwidthOverride(Tier.REMOTE.ordinal())).isNaN();
    }

    @Test
    void readsTheAdmissionWaitAndListsItForTheApi() throws Exception {
        ParameterSet ps = load("kv.yaml", """
                parameters: {decodeStepUs: 8000, decodeStepKvUs: 0.02, kvWaitScale: 0.4}
                """);
        assertThat(ps.cost().decodeStepUs()).isEqualTo(8000);
        assertThat(ps.cost().decodeStepKvUs()).isEqualTo(0.02);
        assertThat(ps.cost().kvWaitScale()).isEqualTo(0.4);
        assertThat(ParameterFile.asMap(ps.cost())).containsEntry("decodeStepUs", 8000.0)
                .containsEntry("decodeStepKvUs", 0.02).containsEntry("kvWaitScale", 0.4);
        assertThat(load("none.yaml", "scope: a\n").cost().kvWaitScale()).as("default").isEqualTo(1.0);
        bad("parameters: {kvWaitScale: 1.5}\n", "parameters.kvWaitScale: must be a number in [0, 1], got 1.5");
        bad("parameters: {decodeStepUs: -1}\n", "parameters.decodeStepUs: must be a number");
        bad("parameters: {decodeStepKvUs: NaN}\n", "parameters.decodeStepKvUs: must be a number");
    }

    @Test
    void theEnginesPrefillStepIsSetHereForAnEngineOtherThanVllm() throws Exception {
        ParameterSet ps = load("step.yaml", "parameters: {prefillStepUs: 10000}\n");
        assertThat(ps.cost().prefillStepUs()).isEqualTo(10_000);
        assertThat(ParameterFile.asMap(ps.cost())).containsEntry("prefillStepUs", 10_000.0);
        bad("parameters: {prefillStepUs: -1}\n", "parameters.prefillStepUs: must be a number");
        bad("rho: {w0: {hbm: 0.5}}\n", "hbm has no transfer link");
    }

    @Test
    void jsonAndEmptyDefaults() throws Exception {
        ParameterSet ps = load("p.json", "{\"version\": 3, \"rho\": {\"w0\": {\"cpu\": 0.5}}}");
        assertThat(ps.version()).isEqualTo(3);
        assertThat(ps.scope()).isEqualTo("default");
        assertThat(ps.rho(0, Tier.CPU.ordinal())).isEqualTo(0.5);
    }

    /** What follows a first document was dropped without a word (a reload too: the same reader). */
    @Test
    void aSecondDocumentIsRefusedAndOneWithCommentsLoads() throws Exception {
        bad("version: 3\n---\nrho: {w0: {cpu: 0.5}}\n",
                "bad.yaml: more than one YAML document (a second one starts at line 2); put every setting in one document");
        assertThatThrownBy(() -> load("bad.json", "{\"version\": 3}\n{\"version\": 4}\n")).isInstanceOf(ConfigException.class)
                .hasMessageEndingWith("bad.json: more than one JSON value (a second one starts at line 2, column 1); "
                        + "put every setting in one JSON object");
        assertThat(load("p.yaml", "---\nversion: 3\n# no more\n").version()).isEqualTo(3);
        Files.writeString(dir.resolve("sel.yaml"), "version: 3\n---\nversion: 4\n");
        assertThatThrownBy(() -> io.tierroute.selector.config.ConfigLoader.load(writeSelector("parametersFile: sel.yaml\n")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("parametersFile")
                .hasMessageContaining("sel.yaml").hasMessageContaining("a second one starts at line 2");
    }

    private Path writeSelector(String extra) throws Exception {
        return Files.writeString(dir.resolve("selector.yaml"), "workers: [{name: w0}, {name: w1}, {name: w2}]\n" + extra);
    }

    private void bad(String text, String... fragments) {
        assertThatThrownBy(() -> load("bad.yaml", text)).isInstanceOf(ConfigException.class).satisfies(e -> {
            assertThat(e.getMessage()).contains("bad.yaml");
            for (String f : fragments) {
                assertThat(e.getMessage()).contains(f);
            }
        });
    }

    /** JSON as YAML: a bad number is quoted as the file wrote it ({@code 12e-1}), not as its value reformatted (1.2). */
    @Test
    void aBadNumberIsQuotedAsWritten() {
        assertThatThrownBy(() -> load("bad.json", "{\"rho\": {\"w0\": {\"cpu\": 12e-1}}}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageEndingWith("bad.json: rho.w0.cpu: must be a number in [0, 1], got 12e-1");
        bad("parameters: {alphaD: -6e2}\n", "parameters.alphaD: must be a number in [0, 100000] µs/token, got -6e2");
    }

    /** No cost parameter may be so large that every cost is infinite: the snapshots' physical bounds, or a sane cap. */
    @Test
    void costParametersHaveUpperBounds() throws Exception {
        bad("parameters: {alphaP: 1e308}\n", "parameters.alphaP: must be a number in [0, 10000] µs/token, got 1e308");
        bad("parameters: {lambda: 2}\n", "parameters.lambda: must be a number in [0, 1] 1/s, got 2");
        bad("parameters: {harmWeight: 1e6}\n", "parameters.harmWeight: must be a number in [0, 100], got 1e6");
        bad("parameters: {prefillStepUs: 1e300}\n", "parameters.prefillStepUs", "got 1e300");
        assertThat(load("ok.yaml", "parameters: {alphaP: 1e4, harmWeight: 100, alphaOwn: 10}\n").cost().alphaP())
                .isEqualTo(1e4);
    }

    @Test
    void errorsNameTheField() {
        bad("rho: {w9: {cpu: 0.2}}\n", "rho.w9: unknown worker 'w9'");
        bad("rho: {w0: {cpu: 1.2}}\n", "rho.w0.cpu: must be a number in [0, 1], got 1.2");
        bad("rho: {w0: {tape: 0.2}}\n", "rho.w0.tape", "unknown tier");
        bad("bandwidth: {cpu: 0}\n", "bandwidth.cpu: must be a number > 0 bytes/s");
        bad("bandwidth: {hbm: 1e9}\n", "bandwidth.hbm");
        bad("version: -1\n", "version: must be a number ≥ 0");
        bad("parameters: {alphaP: NaN}\n", "parameters.alphaP: must be a number");
        bad("parameters: {alphaQ: 1}\n", "parameters.alphaQ: unknown key");
        bad("outputQuantile: 1\n", "outputQuantile");
        bad("versoin: 2\n", "versoin: unknown key (did you mean 'version'?)");
        bad("rho: [1, 2]\n", "rho: must be a mapping");
        // kafka.scope's rule: a scope no selector could be configured to serve is no scope to load parameters of
        bad("scope: 'a#b'\n", "scope: must not contain '#'");
        bad("scope: " + "s".repeat(300) + "\n", "scope: a scope has at most 256 characters, got 300");
        bad("scope: ''\n", "scope: must not be empty");
    }

    @Test
    void loadsAnExportedQuantileForestAsTheOutputModel() throws Exception {
        try (var in = getClass().getResourceAsStream("/forest/qrf-fixture.bin")) {
            Files.write(dir.resolve("qrf.bin"), in.readAllBytes());
        }
        ParameterSet ps = load("p.yaml", "outputModel: qrf.bin\noutputQuantile: 0.9\n");
        assertThat(ps.outputModel()).isInstanceOf(ForestOutputModel.class);
        double p50 = ps.outputModel().predict(new OutputLengthModel.OutputFeatures(2000, "m", null, null, null, 4096, 0, null), 0.5);
        double p90 = ps.outputModel().predict(new OutputLengthModel.OutputFeatures(2000, "m", null, null, null, 4096, 0, null), 0.9);
        assertThat(p50).isPositive().isLessThanOrEqualTo(p90);

        Files.write(dir.resolve("junk.bin"), new byte[] {1, 2, 3});
        bad("outputModel: junk.bin\n", "outputModel", "not a valid quantile forest");
        bad("outputModel: missing.bin\n", "outputModel", "cannot read");
    }
}
