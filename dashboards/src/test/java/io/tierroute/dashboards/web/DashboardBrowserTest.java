package io.tierroute.dashboards.web;

import io.tierroute.dashboards.Broker;
import io.tierroute.dashboards.Dashboard;
import io.tierroute.dashboards.DashboardFixture;
import io.tierroute.dashboards.Snapshots;
import io.tierroute.deploy.local.TreeDeletion;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.kafka.ParameterLoader;
import io.tierroute.selector.kafka.SnapshotConverter;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.WorkerRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.FluentWait;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The page in a real headless Chromium (Debian's chromium + chromedriver, driven by Selenium; no
 * Selenium Manager downloads) against a real broker holding a few snapshots, with a real selector
 * parameter loader following the same topics. Saves the README's screenshot only when asked with
 * {@code -Ddashboard.screenshot=FILE} (see README.md), so a test run leaves the tree unchanged.
 */
class DashboardBrowserTest {

    static final String CHROMIUM = System.getProperty("tierroute.chromium", "/usr/bin/chromium");
    static final String CHROMEDRIVER = System.getProperty("tierroute.chromedriver", "/usr/bin/chromedriver");
    /** Where to save the screenshot the README shows (-Ddashboard.screenshot=docs/dashboard.png); unset: nowhere. */
    static final String SCREENSHOT = System.getProperty("dashboard.screenshot", "");
    static final String TOKEN = "op-secret-42";
    static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final DashboardFixture fixture = DashboardFixture.seededWith(Snapshots.accepted("default", 1),
            Snapshots.accepted("default", 2), Snapshots.rejected("default", 3), Snapshots.accepted("default", 4),
            Snapshots.accepted("default", 5), Snapshots.accepted("pool-b", 1));
    private ParameterStore store;
    private ParameterLoader loader;
    private Dashboard dashboard;
    private WebDriver driver;
    private Path profile;

    @BeforeAll
    static void browserInstalled() {
        for (String f : List.of(CHROMIUM, CHROMEDRIVER)) {
            assertThat(new File(f).canExecute()).as(f + " is missing: install Debian's chromium and chromium-driver "
                    + "(apt-get install -y chromium chromium-driver; .ci/run does)").isTrue();
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        store = new ParameterStore(ParameterSet.defaults(Snapshots.WORKERS.size()));
        loader = new ParameterLoader(KafkaSettings.defaults(Broker.bootstrap()), store,
                new SnapshotConverter(new WorkerRegistry(Snapshots.WORKERS), CostParameters.DEFAULTS, 0.5)).start();
        assertThat(loader.awaitReady(WAIT)).as("selector loader ready").isTrue();
        Broker.await(WAIT, () -> store.current().version() == 5, "selector serves version 5");

        dashboard = fixture.startDashboard(new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", 0, TOKEN,
                "TIERROUTE_ADMIN_TOKEN", "default").withOperators("alice", OperatorTokens.none()));

        profile = Files.createTempDirectory("tierroute-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1400,2500", "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        driver = new ChromeDriver(service, options);
        driver.get(dashboard.uri().toString());
        new WebDriverWait(driver, WAIT).until(d -> !d.findElements(By.cssSelector("#versions tbody tr")).isEmpty()
                && d.findElements(By.cssSelector("#timelines .uplot")).size() >= 10);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (driver != null) {
            driver.quit();
        }
        if (loader != null) {
            loader.close();
        }
        // Chromium's helper processes may still be removing files in it after quit(): a tolerant deletion
        TreeDeletion.delete(profile);
    }

    private Object js(String script) {
        return ((JavascriptExecutor) driver).executeScript(script);
    }

    @Test
    void chartsRenderOnePointPerVersion() {
        @SuppressWarnings("unchecked")
        Map<String, Object> counts = (Map<String, Object>) js("""
                const c = window.tierrouteDashboard.charts;
                const n = (a) => a.filter((v) => v != null).length;
                return {names: Object.keys(c).filter((k) => !k.startsWith('__')).length,
                        alphaP: c.alphaP.data[0].length, accepted: n(c.alphaP.data[1]), rejected: n(c.alphaP.data[2]),
                        bw: c['bw.CPU'].data[0].length, calibration: c.__calibration.data[0].length,
                        drawn: document.querySelectorAll('#timelines canvas').length};""");
        assertThat(counts.get("names")).as("one chart per fitted parameter: 13 scalars + bw.CPU").isEqualTo(14L);
        assertThat(counts.get("alphaP")).as("one point per version").isEqualTo(5L);
        assertThat(counts.get("accepted")).isEqualTo(4L);
        assertThat(counts.get("rejected")).isEqualTo(1L);
        assertThat(counts.get("bw")).isEqualTo(5L);
        assertThat(counts.get("calibration")).as("one point per calibrated quantile").isEqualTo(3L);
        assertThat(counts.get("drawn")).isEqualTo(14L);
        assertThat(driver.findElement(By.id("chart-alphaP")).getDomAttribute("data-points")).isEqualTo("5");
        assertThat(driver.findElement(By.id("heatmap")).getDomAttribute("data-cells")).isEqualTo("6");
        assertThat(driver.findElements(By.cssSelector("#heatmap tbody tr"))).hasSize(3);

        List<WebElement> rows = driver.findElements(By.cssSelector("#versions tbody tr"));
        assertThat(rows).extracting(r -> r.getDomAttribute("data-version")).containsExactly("5", "4", "3", "2", "1");
        WebElement rejected = rows.get(2);
        assertThat(rejected.getDomAttribute("data-status")).isEqualTo("REJECTED");
        assertThat(rejected.getText()).contains("alphaP jumped ×12");
        assertThat(rows.get(0).getDomAttribute("data-active")).isEqualTo("true");
        assertThat(driver.findElement(By.id("calibration-note")).getText()).contains("held-out rows");
        assertThat(driver.findElement(By.id("calibration-chart")).getDomAttribute("data-points")).isEqualTo("3");
        assertThat(driver.findElements(By.cssSelector("#calibration-chart canvas"))).hasSize(1);
        List<WebElement> coverage = driver.findElements(By.cssSelector("#coverage-table tbody tr"));
        assertThat(coverage).extracting(r -> r.getDomAttribute("data-q")).containsExactly("0.1", "0.5", "0.9");
        assertThat(coverage.get(1).getText()).contains("0.50").contains("0.450").contains("20");
        assertThat(driver.findElement(By.cssSelector("#detail tbody")).getText()).contains("alphaP").contains("5000");
    }

    /** A dashboard that never reached Kafka is never ready: the page says why, not that it is reading the history. */
    @Test
    void aDashboardThatNeverReachedKafkaSaysSoOnThePage() throws Exception {
        // Nothing listens there: a port below the OS's ephemeral range, where servers that bind port 0 get theirs.
        int port = io.tierroute.deploy.local.LoopbackPorts.free();
        try (Dashboard cut = Dashboard.start(new Dashboard.Settings("127.0.0.1:" + port, "127.0.0.1", 0, TOKEN,
                "TIERROUTE_ADMIN_TOKEN", "default"))) {
            driver.get(cut.uri().toString());
            new WebDriverWait(driver, WAIT).until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"),
                    "no connection to Kafka at 127.0.0.1:" + port));
            Thread.sleep(4_500); // two more polls of the status: the error stays said
            assertThat(driver.findElement(By.id("message")).getText()).startsWith("no connection to Kafka");
            assertThat(driver.findElement(By.id("message")).getAttribute("class")).isEqualTo("error");
        }
    }

    /** Without operator tokens every write is a 403: the page's write buttons are off, rather than asking for a token. */
    @Test
    void aDashboardWithoutOperatorTokensTurnsItsWriteButtonsOff() throws Exception {
        assertThat(driver.findElement(By.id("rollback-btn")).isEnabled()).as("with a token").isTrue();
        try (Dashboard readOnly = Dashboard.start(new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", 0, null,
                "TIERROUTE_ADMIN_TOKEN", "default"))) {
            driver.get(readOnly.uri().toString());
            new WebDriverWait(driver, WAIT).until(d -> !d.findElements(By.cssSelector("#versions tbody tr .pin-btn"))
                    .isEmpty());
            WebElement rollback = driver.findElement(By.id("rollback-btn"));
            assertThat(rollback.isEnabled()).isFalse();
            assertThat(rollback.getDomAttribute("title")).contains("read-only");
            assertThat(driver.findElements(By.cssSelector("#versions tbody tr .pin-btn")))
                    .allSatisfy(b -> assertThat(b.isEnabled()).isFalse());
        }
    }

    @Test
    void aRollbackWithoutTheRightTokenIsRefused() {
        confirm("rollback-btn", "", "no token");
        WebElement msg = new WebDriverWait(driver, WAIT).until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#message.error")));
        assertThat(msg.getText()).contains("refused (401)").contains("operator token");

        confirm("rollback-btn", "wrong-token", "wrong token");
        new WebDriverWait(driver, WAIT).until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"),
                "refused (401): the operator token is wrong"));

        assertThat(Broker.controlRecords()).as("nothing reached the control topic").isEmpty();
        assertThat(store.current().version()).isEqualTo(5);
    }

    @Test
    void aRollbackThroughThePageMakesTheSelectorServeThePreviousAcceptedVersion() throws Exception {
        confirm("rollback-btn", TOKEN, "alphaD drifted after the deploy");
        new WebDriverWait(driver, WAIT).until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"),
                "rollback done"));
        assertThat(driver.findElement(By.id("message")).getText()).as("the token's operator is the actor")
                .contains("by alice");
        Broker.await(WAIT, () -> store.current().version() == 4, "the selector serves the pinned version 4");
        assertThat(store.current().cost().alphaP()).isEqualTo(4.5);
        assertThat(loader.status().scopes().get("default").pinned()).isTrue();

        // The page redraws after its own action and again when the control record arrives: read settled state.
        waiting().withMessage("version 4's row marked pinned and active").until(d -> {
            WebElement row4 = d.findElement(By.cssSelector("#versions tbody tr[data-version='4']"));
            return "true".equals(row4.getDomAttribute("data-pinned")) && "true".equals(row4.getDomAttribute("data-active"));
        });
        waiting().withMessage("the scope status says pinned 4")
                .until(d -> d.findElement(By.id("scope-status")).getText().contains("pinned 4"));
        waiting().withMessage("the control list names who and why")
                .until(d -> d.findElement(By.id("controls")).getText().contains("by alice (alphaD drifted after the deploy)"));

        js("document.getElementById('detail').scrollIntoView(false); window.scrollTo(0, 0);");
        byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
        assertThat(png.length).isGreaterThan(10_000);
        if (!SCREENSHOT.isBlank()) {
            Path file = Path.of(SCREENSHOT).toAbsolutePath();
            Files.createDirectories(file.getParent());
            Files.write(file, png);
        }
    }

    @Test
    void aNewSnapshotShowsUpWithoutReloadingThePage() throws Exception {
        js("window.loadedOnce = 'yes';"); // gone if the page reloads
        assertThat(driver.findElement(By.id("chart-alphaP")).getDomAttribute("data-points")).isEqualTo("5");

        Broker.publish(fixture.producer(), Snapshots.accepted("default", 6).build());

        waiting().withMessage("version 6's row and a 6th alpha_p point, without a reload")
                .until(d -> !d.findElements(By.cssSelector("#versions tbody tr[data-version='6']"))
                .isEmpty() && "6".equals(d.findElement(By.id("chart-alphaP")).getDomAttribute("data-points")));
        List<String> rows = waiting().until(d -> d.findElements(By.cssSelector("#versions tbody tr")).stream()
                .map(r -> r.getDomAttribute("data-version") + " " + r.getDomAttribute("data-status") + " "
                        + r.getDomAttribute("data-active")).toList());
        assertThat(rows).extracting(r -> r.split(" ")[0]).containsExactly("6", "5", "4", "3", "2", "1");
        assertThat(rows.get(0)).isEqualTo("6 ACCEPTED true");
        @SuppressWarnings("unchecked")
        Map<String, Object> alphaP = (Map<String, Object>) js("""
                const d = window.tierrouteDashboard.charts.alphaP.data;
                return {points: d[0].length, last: d[1][d[1].length - 1], reloaded: window.loadedOnce !== 'yes'};""");
        assertThat(alphaP.get("points")).as("one more alpha_p point").isEqualTo(6L);
        assertThat(((Number) alphaP.get("last")).doubleValue()).as("v6's alpha_p").isEqualTo(6.5);
        assertThat(alphaP.get("reloaded")).as("the page was not reloaded").isEqualTo(false);
        waiting().withMessage("the scope status says active 6")
                .until(d -> d.findElement(By.id("scope-status")).getText().contains("active 6"));
    }

    /**
     * Version 6 arrives marked ACCEPTED with a value no selector can use (α_p NaN: a writer other than the job). The
     * rule makes it active, the real loader gives it up and serves 5, and the page says so: the status names the
     * version selectors serve, 6's row is marked unusable with the reason and offers no Pin, 5's row is marked served,
     * and the ρ heatmap's latest snapshot (6) is "not served".
     */
    @Test
    void anActiveVersionSelectorsCannotUseIsShownWithTheVersionTheyServe() throws Exception {
        Broker.publish(fixture.producer(), Snapshots.accepted("default", 6).setAlphaP(Snapshots.fv(Double.NaN, 10))
                .build());
        Broker.await(WAIT, () -> Long.valueOf(6).equals(loader.status().scopes().get("default").activeVersion()),
                "the loader read version 6");
        assertThat(store.current().version()).as("the selector serves 5").isEqualTo(5);

        waiting().withMessage("the scope status names the version selectors serve")
                .until(d -> d.findElement(By.id("scope-status")).getText()
                        .contains("selectors serve 5: 6 cannot be used"));
        WebElement row6 = waiting().until(d -> d.findElement(By.cssSelector("#versions tbody tr[data-version='6']")));
        assertThat(row6.getDomAttribute("data-active")).isEqualTo("true");
        assertThat(row6.getDomAttribute("data-unusable")).isEqualTo("true");
        assertThat(row6.getText()).contains("selectors cannot use it: alphaP must be finite, got NaN");
        assertThat(row6.findElements(By.cssSelector(".pin-btn"))).as("no Pin for it").isEmpty();
        WebElement row5 = driver.findElement(By.cssSelector("#versions tbody tr[data-version='5']"));
        assertThat(row5.getDomAttribute("data-served")).isEqualTo("true");
        assertThat(row5.getText()).contains("served");
        waiting().withMessage("the heatmap's snapshot is said not to be served")
                .until(d -> d.findElement(By.id("rho-version")).getText()
                        .equals("latest snapshot: version 6 (not served: selectors serve version 5)"));
    }

    /**
     * Switching scope while the page reads the old one: the old scope's answers, arriving after the switch, are dropped
     * and the new scope is read (before, the old scope's table stayed up for good, its revision taken, and its Pin
     * buttons pinned the new scope with the old scope's versions). A Pin on a row still shown acts on the row's scope.
     * The page's fetch is wrapped to hold a scope's answers until released.
     */
    @Test
    void switchingScopeWhileReadingDropsTheOldScopesAnswersAndPinActsOnTheRowsScope() {
        js("""
                const real = window.fetch;
                window.held = [];
                window.holdScope = 'default';
                window.fetch = (url, opts) => window.holdScope && String(url).includes('scopes/' + window.holdScope + '/')
                    ? new Promise((resolve) => window.held.push(() => resolve(real(url, opts)))) : real(url, opts);
                window.tierrouteDashboard.revision = -1;""");
        waiting().withMessage("a refresh of 'default' under way").until(d -> ((Number) js("return window.held.length;"))
                .intValue() >= 4);
        new Select(driver.findElement(By.id("scope"))).selectByValue("pool-b");
        js("window.holdScope = null; window.held.splice(0).forEach((release) => release());");
        waiting().withMessage("pool-b's one version in the table, not default's five").until(d -> d.findElements(
                By.cssSelector("#versions tbody tr")).stream().map(r -> r.getDomAttribute("data-version")).toList()
                .equals(List.of("1")));

        // Back to 'default', whose answers are held: pool-b's row stays shown, and its Pin pins pool-b.
        js("window.holdScope = 'default';");
        new Select(driver.findElement(By.id("scope"))).selectByValue("default");
        driver.findElement(By.cssSelector("#versions tbody tr[data-version='1'] .pin-btn")).click();
        new WebDriverWait(driver, WAIT).until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        assertThat(driver.findElement(By.id("confirm-text")).getText()).startsWith("Pin version 1 of scope \"pool-b\"");
        driver.findElement(By.id("token")).sendKeys(TOKEN);
        driver.findElement(By.id("reason")).sendKeys("pool-b known good");
        driver.findElement(By.id("confirm")).click();
        new WebDriverWait(driver, WAIT).until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"),
                "pin done"));
        assertThat(Broker.controlRecords()).singleElement().satisfies(c -> {
            assertThat(c.getScope()).isEqualTo("pool-b");
            assertThat(c.getVersion()).isEqualTo(1L);
        });
    }

    /**
     * A wait that retries a read whose element the page replaced meanwhile: the page redraws its tables
     * whenever the history changes (live updates), so an element found a moment ago can be gone.
     */
    private FluentWait<WebDriver> waiting() {
        return new WebDriverWait(driver, WAIT).ignoring(StaleElementReferenceException.class);
    }

    /** Clicks {@code button}, fills the dialog (token may be empty) and confirms. */
    private void confirm(String button, String token, String reason) {
        driver.findElement(By.id(button)).click();
        new WebDriverWait(driver, WAIT).until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        WebElement t = driver.findElement(By.id("token"));
        t.clear();
        if (!token.isEmpty()) {
            t.sendKeys(token);
        }
        WebElement r = driver.findElement(By.id("reason"));
        r.clear();
        r.sendKeys(reason);
        driver.findElement(By.id("confirm")).click();
    }
}
