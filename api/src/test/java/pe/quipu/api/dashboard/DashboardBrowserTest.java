package pe.quipu.api.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.WebhookReceiver;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The dashboard's whole journey in Debian's headless Chromium (driven by Selenium through Debian's chromedriver),
 * against a running Quipu and a local webhook receiver: sign up and log in, a key seen once, a lookup with it in the
 * usage and the chart, a webhook created, tested until delivered and its secret rotated, the export downloaded and
 * read, the account deleted and the login page shown. Each page is checked at 1280 and 390 px wide: a screenshot
 * under target/screenshots, nothing wider than the screen, every input labelled, axe-core without a serious or
 * critical violation, the main controls reached with Tab, and a browser console without errors.
 *
 * <p>The journey runs as ordered steps in one browser, each named for what it checks. A step builds on the ones
 * before it (the account, the key, the webhook), so after a failure the later steps are skipped rather than failing
 * for the same cause; the failure carries what the browser showed (the page's text, its console, and a screenshot,
 * target/screenshots/failure.png).
 *
 * <p>Chromium missing is a failure, not a skip: {@code .ci/run} installs {@code chromium} and {@code chromium-driver}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardBrowserTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("webhooks.allowPrivateNetworks", "true");

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");
    private static final int WIDE = 1280;
    private static final int NARROW = 390;
    private static final int HEIGHT = 900;
    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private static final String PASSWORD = "una clave muy larga 2026";
    /** QuipuExtension.START as a Lima day: the usage's "today". */
    private static final String TODAY = "2026-10-07";

    private static final WebhookReceiver receiver = WebhookReceiver.start();
    private static ChromeDriver driver;
    private static WebDriverWait wait;
    private static Path downloads;
    private static Path profile;
    private static HttpServer crossSite;
    private static String axe;
    /** Every page checked, for the final look at what was covered. */
    private static final Set<String> checked = new LinkedHashSet<>();

    @BeforeAll
    static void startChromium() throws IOException {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            fail("The dashboard's browser test needs Debian's Chromium and its driver at " + CHROMIUM + " and "
                    + CHROMEDRIVER + ": apt-get install chromium chromium-driver (.ci/run installs them when missing)");
        }
        axe = axeSource();
        Files.createDirectories(SCREENSHOTS);
        Files.deleteIfExists(SCREENSHOTS.resolve("failure.png"));
        downloads = Files.createTempDirectory("quipu-dashboard-downloads");
        profile = Files.createTempDirectory("quipu-dashboard-profile");

        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=" + WIDE + "," + HEIGHT, "--hide-scrollbars", "--lang=es-PE", "--no-first-run", "--disable-extensions",
                "--password-store=basic", "--user-data-dir=" + profile,
                "--disable-features=Translate,PasswordLeakDetection,OptimizationHints,MediaRouter");
        options.setExperimentalOption("prefs", Map.of("download.default_directory", downloads.toString(),
                "download.prompt_for_download", false, "credentials_enable_service", false,
                "profile.password_manager_enabled", false));
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability(ChromeOptions.LOGGING_PREFS, logs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(60));
        driver.executeCdpCommand("Browser.setDownloadBehavior",
                Map.of("behavior", "allow", "downloadPath", downloads.toString()));
        wait = new WebDriverWait(driver, PATIENCE);

        // Another site (localhost is not 127.0.0.1's site) whose page tries to spend the refresh cookie.
        crossSite = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
        crossSite.createContext("/", exchange -> {
            byte[] page = attackPage().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, page.length);
            exchange.getResponseBody().write(page);
            exchange.close();
        });
        crossSite.start();
    }

    @AfterAll
    static void stopChromium() {
        if (driver != null) {
            driver.quit();
        }
        if (crossSite != null) {
            crossSite.stop(0);
        }
        receiver.close();
        for (Path folder : new Path[] {downloads, profile}) {
            if (folder != null) {
                try (Stream<Path> files = Files.walk(folder)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                } catch (IOException e) {
                    // Left in the temporary folder.
                }
            }
        }
    }

    /** The account the journey signs up with. */
    private final String email = "ana-" + UUID.randomUUID() + "@quipu.test";
    /** What the steps hand on to the ones after them. */
    private String key;
    private String prefix;
    private String ruc;
    private String next;
    private String secret;
    private String rotated;

    /** The step that failed, if one did: the steps after it build on it, so they are skipped. */
    private String failedStep;
    /**
     * The journey's clock runs on from step to step, as in one session; the extension sets it back to START before
     * each test.
     */
    private Instant journeyClock = QuipuExtension.START;

    /** What the browser showed when a step failed, added to its failure for whoever reads it. */
    @RegisterExtension
    final TestExecutionExceptionHandler whatTheBrowserShowed = (context, failure) -> {
        if (failedStep == null) {
            failedStep = context.getDisplayName();
        }
        Files.write(SCREENSHOTS.resolve("failure.png"), driver.getScreenshotAs(OutputType.BYTES));
        List<String> console = driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .map(LogEntry::toString).toList();
        failure.addSuppressed(new AssertionError("The page at " + driver.getCurrentUrl() + " (screenshot: "
                + SCREENSHOTS.resolve("failure.png") + ") read:\n"
                + driver.findElement(By.tagName("body")).getText() + "\nBrowser console: " + console));
        throw failure;
    };

    @BeforeEach
    void goOnFromThePreviousStep(TestInfo step) {
        assumeTrue(failedStep == null, () -> step.getDisplayName() + " is skipped: it builds on " + failedStep
                + ", which failed");
        quipu.clock.set(journeyClock);
    }

    @AfterEach
    void keepTheClock() {
        journeyClock = quipu.clock.instant();
    }

    @Test
    @Order(1)
    void signing_up_and_logging_in_keeps_the_access_token_out_of_the_pages_storage() throws Exception {
        driver.get(quipu.uri("/app").toString());
        waitFor(By.id("login-email"));
        assertThat(driver.findElement(By.id("nav")).isDisplayed()).as("the navigation, logged out").isFalse();
        assertThat(driver.findElement(By.id("logout")).isDisplayed()).as("the logout button, logged out").isFalse();
        checkPage("ingresar", "#login-email", "#login-password", "#login-submit", "#to-signup");
        click(By.id("to-signup"));
        waitFor(By.id("signup-nombre"));
        checkPage("registro", "#signup-nombre", "#signup-email", "#signup-password", "#signup-submit");
        type(By.id("signup-nombre"), "Ana Quispe");
        type(By.id("signup-email"), email);
        type(By.id("signup-password"), PASSWORD);
        click(By.id("signup-submit"));
        waitForText(By.cssSelector("main .alert.info"), "Cuenta creada");
        assertThat(waitFor(By.id("login-email")).getDomProperty("value")).isEqualTo(email);
        type(By.id("login-password"), PASSWORD);
        click(By.id("login-submit"));
        waitForText(By.id("overview-plan"), "free");
        assertThat(driver.findElement(By.id("who")).getText()).isEqualTo(email);

        // The access token is in memory only: nothing in the page's storage, and the cookie is out of the page's reach.
        String storage = (String) driver.executeScript(
                "return JSON.stringify(Object.assign({}, localStorage)) + JSON.stringify(Object.assign({}, sessionStorage)) + document.cookie");
        assertThat(storage).doesNotContain("eyJ", "qr_", "quipu_refresh");
    }

    @Test
    @Order(2)
    void on_the_free_plan_a_webhook_is_refused_in_the_problems_words() throws Exception {
        click(By.cssSelector("a[data-route=webhooks]"));
        waitForText(By.cssSelector("#webhooks-list .empty"), "no incluye webhooks");
        type(By.id("webhook-url"), receiver.url("/quipu"));
        click(By.id("webhook-create"));
        // The page asks for Spanish (Accept-Language: es-PE): the Problem's title and detail are the API's, in Spanish.
        waitForText(By.cssSelector("form .alert.error"), "La solicitud excede lo que permite el plan");
        assertThat(driver.findElement(By.cssSelector("form .alert.error")).getText()).contains("plan")
                .doesNotContain(" the ", " plan allows ");
        assertConsole("webhooks (free)", List.of("/v1/webhooks - Failed to load resource: the server responded with a status of 403"));
        checkPage("webhooks-plan", "#webhook-url", "#webhook-create");
    }

    @Test
    @Order(3)
    void after_a_plan_change_a_reload_restores_the_session_from_the_cookie() {
        assertThat(quipu.task("set-plan", "email", email, "plan", "starter").statusCode()).isEqualTo(200);
        driver.navigate().refresh();
        waitForText(By.cssSelector("a[data-route=webhooks][aria-current=page]"), "Webhooks");
        click(By.cssSelector("a[data-route=resumen]"));
        waitForText(By.id("overview-plan"), "starter");
    }

    /**
     * Another site's script cannot send the CSRF header (no CORS), its form is refused, and afterwards the page's
     * session is still there.
     */
    @Test
    @Order(4)
    void another_site_cannot_use_the_refresh_cookie() {
        driver.get("http://localhost:" + crossSite.getAddress().getPort() + "/attack");
        wait.until(d -> d.getTitle().startsWith("done"));
        assertThat(driver.getTitle()).as("what the other site's script got").isEqualTo("done blocked");
        driver.findElement(By.id("form")).submit();
        wait.until(d -> d.getCurrentUrl().contains("/v1/auth/refresh"));
        assertThat(driver.findElement(By.tagName("body")).getText()).doesNotContain("accessToken");
        driver.manage().logs().get(LogType.BROWSER); // the other site's console: its CORS errors are the point
        driver.get(quipu.uri("/app#/resumen").toString());
        waitForText(By.id("overview-plan"), "starter");
    }

    @Test
    @Order(5)
    void after_logging_out_a_reload_finds_no_session_and_logging_in_again_works() {
        click(By.id("logout"));
        waitForText(By.cssSelector("main .alert.info"), "Sesión cerrada");
        assertThat(driver.findElement(By.id("logout")).isDisplayed()).isFalse();
        driver.navigate().refresh();
        waitFor(By.id("login-email"));
        type(By.id("login-email"), email);
        type(By.id("login-password"), PASSWORD);
        click(By.id("login-submit"));
        waitForText(By.id("overview-plan"), "starter");
    }

    @Test
    @Order(6)
    void a_new_keys_secret_is_shown_once() throws Exception {
        click(By.cssSelector("a[data-route=claves]"));
        waitFor(By.cssSelector("#keys-list .empty"));
        checkPage("claves-vacio", "#key-name", "#scope-ruc-read", "#scope-webhooks-manage", "#key-create");
        type(By.id("key-name"), "ERP producción");
        click(By.id("scope-ruc-read"));
        click(By.id("key-create"));
        WebElement secretInput = waitFor(By.cssSelector("input[data-secret]"));
        key = secretInput.getDomProperty("value");
        assertThat(key).startsWith("qk_live_");
        assertThat(driver.findElement(By.cssSelector(".secret")).getText()).contains("no se volverá a mostrar");
        click(By.xpath("//section[contains(@class,'secret')]//button[normalize-space()='Copiar']"));
        waitForText(By.cssSelector(".secret [role=status]"), "C");
        checkPage("claves", "input[data-secret]", "#key-name", "#key-create", "button[data-action=rotate]",
                "button[data-action=revoke]");
        click(By.xpath("//button[normalize-space()='Ya la guardé']"));
        wait.until(d -> d.findElements(By.cssSelector("input[data-secret]")).isEmpty());
        assertThat(driver.getPageSource()).doesNotContain(key);
        WebElement listed = driver.findElement(By.cssSelector("#keys-list li[data-key]"));
        prefix = listed.getDomAttribute("data-key");
        assertThat(key).startsWith(prefix);
        assertThat(listed.getText()).contains("ERP producción", prefix, "ruc:read", "Activa", "Nunca");
    }

    @Test
    @Order(7)
    void a_lookup_with_the_key_shows_in_the_usage_the_chart_and_as_the_keys_last_use() throws Exception {
        PadronFixtures.load(quipu.database, QuipuExtension.START);
        ruc = PadronFixtures.records().getFirst().ruc().value();
        // /v1/status re-reads the registry's size every 5 s of the application's clock, which stands still here.
        quipu.clock.advance(Duration.ofSeconds(6));
        HttpResponse<String> lookup = quipu.get("/v1/ruc/" + ruc, key);
        assertThat(lookup.statusCode()).as(lookup.body()).isEqualTo(200);
        click(By.cssSelector("a[data-route=resumen]"));
        waitFor(By.id("overview-refresh"));
        wait.until(d -> {
            List<WebElement> bars = d.findElements(By.cssSelector("#usage-chart rect[data-fecha='" + TODAY + "']"));
            if (!bars.isEmpty() && "1".equals(bars.getFirst().getDomAttribute("data-requests"))) {
                return true;
            }
            d.findElement(By.id("overview-refresh")).click();
            sleep(500);
            return false;
        });
        assertThat(driver.findElement(By.id("overview-used")).getText()).isEqualTo("1");
        assertThat(driver.findElement(By.cssSelector("#usage-chart rect[data-fecha='" + TODAY + "']"))
                .getDomAttribute("class")).isEqualTo("bar today");
        assertThat(Double.parseDouble(driver.findElement(By.cssSelector("#usage-chart rect[data-fecha='" + TODAY + "']"))
                .getDomAttribute("height"))).isGreaterThan(10);
        assertThat(driver.findElement(By.id("overview-requests-total")).getText()).isEqualTo("1 solicitud, 1 unidad");
        assertThat(driver.findElement(By.id("overview-rpm")).getText()).isEqualTo("300");
        assertThat(driver.findElement(By.id("fresh-registry")).getText()).contains("contribuyentes, cargado el");
        checkPage("resumen", "#overview-refresh", "a[data-route=claves]", "a[data-route=webhooks]", "#logout");
        driver.navigate().refresh();
        click(By.cssSelector("a[data-route=claves]"));
        wait.until(d -> {
            List<WebElement> lastUse = d.findElements(By.cssSelector("li[data-key='" + prefix + "'] [data-last-used]"));
            if (!lastUse.isEmpty() && !lastUse.getFirst().getText().equals("Nunca")) {
                return true;
            }
            d.navigate().refresh();
            sleep(500);
            return false;
        });
    }

    @Test
    @Order(8)
    void a_rotated_key_works_through_its_grace_and_its_revoked_replacement_does_not() {
        click(By.cssSelector("li[data-key='" + prefix + "'] button[data-action=rotate]"));
        click(waitFor(By.cssSelector("dialog[open] button[data-confirm]")));
        waitForText(By.id("grace-end"), "sigue funcionando hasta el");
        next = waitFor(By.cssSelector("input[data-secret]")).getDomProperty("value");
        assertThat(next).startsWith("qk_live_").isNotEqualTo(key);
        click(By.xpath("//button[normalize-space()='Ya la guardé']"));
        assertThat(driver.findElement(By.cssSelector("li[data-key='" + prefix + "']")).getText()).contains("En gracia",
                "Funciona hasta");
        WebElement fresh = driver.findElements(By.cssSelector("#keys-list li[data-key]")).stream()
                .filter(item -> !prefix.equals(item.getDomAttribute("data-key"))).findFirst().orElseThrow();
        String nextPrefix = fresh.getDomAttribute("data-key");
        assertThat(next).startsWith(nextPrefix);
        click(fresh.findElement(By.cssSelector("button[data-action=revoke]")));
        WebElement dialog = waitFor(By.cssSelector("dialog[open]"));
        assertThat(dialog.getText()).contains("Dejará de funcionar de inmediato");
        click(dialog.findElement(By.cssSelector("button[data-confirm]")));
        waitForText(By.cssSelector("main .alert.success"), "fue revocada");
        assertThat(driver.findElement(By.cssSelector("li[data-key='" + nextPrefix + "']")).getText()).contains("Revocada");
        assertThat(quipu.get("/v1/ruc/" + ruc, next).statusCode()).isEqualTo(401);
        assertThat(quipu.get("/v1/ruc/" + ruc, key).statusCode()).as("the rotated key, in its grace").isEqualTo(200);
    }

    /** Its secret shown once; a test event, watched until delivered; the attempt's detail; a retry. */
    @Test
    @Order(9)
    void a_webhook_is_created_its_test_event_delivered_signed_and_retried() throws Exception {
        click(By.cssSelector("a[data-route=webhooks]"));
        waitFor(By.id("webhook-url"));
        type(By.id("webhook-url"), receiver.url("/quipu"));
        click(By.id("event-key-rotated"));
        click(By.id("webhook-create"));
        secret = waitFor(By.cssSelector("input[data-secret]")).getDomProperty("value");
        assertThat(secret).startsWith("whsec_");
        click(By.xpath("//button[normalize-space()='Ya la guardé']"));
        waitFor(By.cssSelector("li[data-webhook]"));
        assertThat(driver.getPageSource()).doesNotContain(secret);
        // Starter allows one endpoint: the form gives way to a note saying so.
        assertThat(driver.findElement(By.id("webhooks-full")).getText()).contains("Ya tienes el webhook que permite tu plan");
        assertThat(driver.findElement(By.id("webhook-create")).isDisplayed()).isFalse();
        checkPage("webhooks", "button[data-action=test]", "button[data-action=edit]", "button[data-action=rotate]",
                "button[data-action=delete]", "a[data-action=deliveries]", "#webhooks-full a");
        click(By.cssSelector("li[data-webhook] button[data-action=test]"));
        waitFor(By.cssSelector("tr[data-status=delivered]"));
        assertThat(driver.findElement(By.cssSelector("tr[data-status=delivered]")).getText())
                .contains("endpoint.test", "Entregado", "204");
        WebhookReceiver.Received test = receiver.next(Duration.ofSeconds(5));
        assertThat(test.header("x-quipu-event")).isEqualTo("endpoint.test");
        assertThat(signatures(test)).containsEntry("v1", sign(secret, test));
        click(By.cssSelector("tr[data-status=delivered] button[data-action=detail]"));
        waitForText(By.cssSelector("[data-attempts]"), "HTTP 204");
        checkPage("entregas", "#deliveries-test", "#deliveries-refresh", "button[data-action=detail]",
                "button[data-action=retry]");
        click(By.cssSelector("tr[data-status=delivered] button[data-action=retry]"));
        waitForText(By.cssSelector("main .alert.success"), "Entrega programada");
        assertThat(receiver.next(Duration.ofSeconds(10)).header("x-quipu-event")).isEqualTo("endpoint.test");
    }

    @Test
    @Order(10)
    void a_webhooks_events_are_edited() {
        click(By.linkText("← Webhooks"));
        click(waitFor(By.cssSelector("li[data-webhook] button[data-action=edit]")));
        WebElement editForm = waitFor(By.cssSelector("li[data-webhook] form"));
        editForm.findElement(By.cssSelector("input[value='key.created']")).click();
        editForm.findElement(By.cssSelector("button[type=submit]")).click();
        waitForText(By.cssSelector("main .alert.success"), "Webhook actualizado");
        assertThat(driver.findElement(By.cssSelector("li[data-webhook]")).getText()).contains("key.created");
    }

    @Test
    @Order(11)
    void a_rotated_webhook_secret_is_shown_once_and_the_next_delivery_is_signed_with_both() throws Exception {
        click(By.cssSelector("li[data-webhook] button[data-action=rotate]"));
        click(waitFor(By.cssSelector("dialog[open] button[data-confirm]")));
        WebElement rotatedInput = waitFor(By.cssSelector("input[data-secret]"));
        wait.until(d -> rotatedInput.getDomProperty("value").startsWith("whsec_"));
        rotated = rotatedInput.getDomProperty("value");
        assertThat(rotated).isNotEqualTo(secret);
        assertThat(driver.findElement(By.id("webhook-grace-end")).getText()).contains("hasta el");
        click(By.xpath("//button[normalize-space()='Ya la guardé']"));
        click(By.cssSelector("li[data-webhook] button[data-action=test]"));
        wait.until(d -> d.findElements(By.cssSelector("tr[data-status=delivered]")).size() == 2);
        WebhookReceiver.Received afterRotation = receiver.next(Duration.ofSeconds(5));
        assertThat(signatures(afterRotation)).containsEntry("v1", sign(rotated, afterRotation))
                .containsEntry("v0", sign(secret, afterRotation));
    }

    /**
     * Listas de vigilancia: a list made from pasted lines shows the lines left out, its count, a change with from and
     * to, a RUC taken off, and the account's endpoint subscribed to ruc.changed.
     */
    @Test
    @Order(12)
    void a_watchlist_is_made_from_pasted_lines_and_shows_its_changes() throws Exception {
        String kept = pe.quipu.core.ruc.Ruc.completing("2061887001").value();
        String changed = pe.quipu.core.ruc.Ruc.completing("2061887002").value();
        String removed = pe.quipu.core.ruc.Ruc.completing("2061887003").value();
        click(By.cssSelector("a[data-route=listas]"));
        waitFor(By.id("watchlist-form"));
        assertThat(driver.findElement(By.id("watchlists-list")).getText()).contains("Aún no tienes listas");
        WebElement text = waitFor(By.cssSelector("#watchlist-form textarea"));
        text.sendKeys("RUC,Razón social\n" + kept + ",KUSI S.A.C.\n" + changed + ";ILLAPA\n\n2010022746\n" + removed);
        click(By.cssSelector("#watchlist-form button[type=submit]"));
        waitForText(By.cssSelector("main .alert.success"), "3 RUC vigilados");
        assertThat(driver.findElement(By.id("watchlist-rejected-lines")).getText())
                .contains("Línea 1: RUC").contains("Línea 5: 2010022746").contains("11 dígitos");
        assertThat(driver.findElement(By.cssSelector("tr[data-watchlist=proveedores]")).getText()).contains("3");
        // A load changes one of them after it joined the list.
        Instant loaded = quipu.clock.instant().plusSeconds(60);
        quipu.database.jdbi().useTransaction(h -> {
            h.execute("""
                    insert into ruc_changes (ruc, kind, changes, load_run_id, at)
                    values (?, 'changed', cast(? as jsonb), 41, ?)""", changed,
                    "{\"condicion\": {\"from\": \"HABIDO\", \"to\": \"NO HABIDO\"}}", loaded);
            pe.quipu.core.watchlists.WatchedChanges.announce(h, 41, loaded);
        });
        click(By.cssSelector("tr[data-watchlist=proveedores] button[data-action=open]"));
        waitForText(By.id("watchlist-changes"), "HABIDO → NO HABIDO");
        assertThat(driver.findElement(By.id("watchlist-changes")).getText()).contains(changed, "Condición");
        checkPage("listas", "button[data-action=open]", "button[data-action=delete]", "button[data-remove]",
                "#watchlist-form textarea", "#watchlist-form input[type=file]", "button[data-subscribe]");

        click(By.cssSelector("button[data-remove='" + removed + "']"));
        waitForText(By.cssSelector("main .alert.success"), "quitado");
        waitForText(By.cssSelector("tr[data-watchlist=proveedores]"), "2");
        assertThat(driver.findElements(By.cssSelector("button[data-remove='" + removed + "']"))).isEmpty();

        click(By.cssSelector("button[data-subscribe]"));
        waitForText(By.id("watchlist-endpoints"), "Suscrito");
        assertThat(quipu.database.texts("select count(*) from webhook_subscriptions where event_type = 'ruc.changed'"
                + " and endpoint_id in (select id from webhook_endpoints where url = ?)", receiver.url("/quipu")))
                .containsExactly("1");
    }

    @Test
    @Order(13)
    void the_plans_table_marks_the_accounts_plan() throws Exception {
        click(By.cssSelector("a[data-route=planes]"));
        waitFor(By.cssSelector("tr[data-plan=starter][aria-current=true]"));
        assertThat(driver.findElements(By.cssSelector("#plans-table tbody tr"))).hasSize(5);
        checkPage("planes", "a[data-route=resumen]", "a[data-route=cuenta]", ".table-wrap");
    }

    @Test
    @Order(14)
    void a_rectification_shows_in_the_export_downloaded_without_a_secret() throws Exception {
        click(By.cssSelector("a[data-route=cuenta]"));
        WebElement nombre = waitFor(By.id("me-nombre"));
        nombre.clear();
        nombre.sendKeys("Ana Quispe Mamani");
        click(By.id("me-save"));
        waitForText(By.cssSelector("form .alert.success"), "Datos actualizados");
        checkPage("cuenta", "#me-nombre", "#me-email", "#me-threshold", "#me-save", "#export-download",
                "#delete-phrase");
        click(By.id("export-download"));
        waitForText(By.cssSelector("section[aria-labelledby=export-heading] .alert.success"), "Descarga lista");
        Path exported = wait.until(d -> downloaded("quipu-export-"));
        String document = Files.readString(exported);
        JsonNode export = quipu.json.readTree(document);
        assertThat(export.get("format").asText()).isEqualTo("v1");
        assertThat(export.toString()).contains("Ana Quispe Mamani", email, prefix, receiver.url("/quipu"));
        assertThat(export.get("apiKeys")).hasSize(2);
        assertThat(export.get("webhooks")).hasSize(1);
        assertThat(document).doesNotContain(key, next, secret, rotated);
    }

    @Test
    @Order(15)
    void deleting_the_account_once_its_phrase_is_typed_logs_out_for_good() {
        WebElement remove = driver.findElement(By.id("delete-account"));
        assertThat(remove.isEnabled()).isFalse();
        type(By.id("delete-phrase"), "BORRAR MI CUENTA");
        assertThat(remove.isEnabled()).isTrue();
        click(By.id("delete-account"));
        waitForText(By.cssSelector("main .alert.info"), "Tu cuenta fue eliminada");
        waitFor(By.id("login-email"));
        assertThat(driver.getCurrentUrl()).endsWith("/app#/ingresar");
        assertThat(driver.findElement(By.id("nav")).isDisplayed()).isFalse();
        assertThat(driver.findElement(By.id("logout")).isDisplayed()).isFalse();
        driver.navigate().refresh();
        waitFor(By.id("login-email"));
        assertThat(quipu.get("/v1/ruc/" + ruc, key).statusCode()).isEqualTo(401);
        assertConsole("after deletion", List.of());
    }

    @Test
    @Order(16)
    void every_page_was_checked_at_both_widths() {
        assertThat(checked).containsExactly("ingresar", "registro", "webhooks-plan", "claves-vacio", "claves", "resumen",
                "webhooks", "entregas", "listas", "planes", "cuenta");
    }

    // ---- The checks made on every page ----

    /**
     * At each width: no horizontal overflow, every input labelled, axe-core without a serious or critical violation,
     * a full-page screenshot; then a Tab walk from the top reaching each of {@code keyboard} (CSS selectors), and a
     * console without errors.
     */
    private static void checkPage(String name, String... keyboard) throws IOException {
        for (int width : new int[] {WIDE, NARROW}) {
            viewport(width, HEIGHT);
            List<?> overflowing = (List<?>) driver.executeScript("""
                    const width = document.documentElement.clientWidth;
                    const wide = [];
                    for (const e of document.querySelectorAll('body *')) {
                      const r = e.getBoundingClientRect();
                      if (r.width > 0 && r.right > width + 1 && !e.closest('.table-wrap') && !e.closest('.skip')) {
                        wide.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && e.className.baseVal === undefined ? '.' + e.className : '') + ' right=' + Math.round(r.right));
                      }
                    }
                    if (document.documentElement.scrollWidth > width + 1) {
                      wide.push('document scrollWidth=' + document.documentElement.scrollWidth);
                    }
                    return wide.slice(0, 10);""");
            assertThat(overflowing).as("%s at %d px: elements wider than the screen", name, width).isEmpty();
            List<?> unlabelled = (List<?>) driver.executeScript("""
                    return [...document.querySelectorAll('input, select, textarea')]
                      .filter(e => e.type !== 'hidden')
                      .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby'))
                      .map(e => e.outerHTML);""");
            assertThat(unlabelled).as("%s: inputs without a label", name).isEmpty();
            assertThat(axeViolations()).as("%s at %d px: serious or critical axe-core violations", name, width).isEmpty();
            screenshot(name + "-" + width, width);
        }
        viewport(WIDE, HEIGHT);
        tabWalk(name, keyboard);
        assertConsole(name, List.of());
        checked.add(name);
    }

    private static void viewport(int width, int height) {
        driver.executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of("width", width, "height", height,
                "deviceScaleFactor", 1, "mobile", width < 600));
        settle();
    }

    /** Two animation frames: layout and the chart's redraw at the new width are done. */
    private static void settle() {
        driver.executeAsyncScript("const done = arguments[arguments.length - 1];"
                + "requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 50)));");
    }

    private static void screenshot(String name, int width) throws IOException {
        long height = ((Number) driver.executeScript("return Math.ceil(document.documentElement.scrollHeight)")).longValue();
        viewport(width, (int) Math.min(Math.max(height, HEIGHT), 6000));
        byte[] png = driver.getScreenshotAs(OutputType.BYTES);
        Files.write(SCREENSHOTS.resolve(name + ".png"), png);
        viewport(width, HEIGHT);
    }

    /** axe-core's serious and critical violations in the page as it is now, one line each. */
    private static List<String> axeViolations() {
        if (!Boolean.TRUE.equals(driver.executeScript("return typeof window.axe === 'object'"))) {
            driver.executeScript(axe);
        }
        String result = (String) driver.executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                axe.run(document, { resultTypes: ['violations'] })
                  .then(r => done(JSON.stringify(r.violations)))
                  .catch(e => done('failed: ' + e));""");
        if (result.startsWith("failed:")) {
            throw new AssertionError("axe-core did not run: " + result);
        }
        List<String> faults = new ArrayList<>();
        try {
            for (JsonNode violation : quipu.json.readTree(result)) {
                String impact = violation.path("impact").asText();
                if (impact.equals("serious") || impact.equals("critical")) {
                    List<String> targets = new ArrayList<>();
                    violation.path("nodes").forEach(n -> targets.add(n.path("target").toString()));
                    faults.add(impact + " " + violation.path("id").asText() + ": " + violation.path("help").asText()
                            + " at " + targets);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return faults;
    }

    /** Tab from the top of the page reaches each selector's element (within 80 presses). */
    private static void tabWalk(String name, String... selectors) {
        driver.executeScript("window.scrollTo(0, 0); document.activeElement && document.activeElement.blur();"
                + "document.body.focus();");
        Set<String> reached = new LinkedHashSet<>();
        List<String> path = new ArrayList<>();
        for (int i = 0; i < 80 && reached.size() < selectors.length; i++) {
            new Actions(driver).sendKeys(Keys.TAB).perform();
            path.add((String) driver.executeScript("const e = document.activeElement;"
                    + "return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' ' + (e.textContent || e.value || '').trim().slice(0, 30);"));
            for (String selector : selectors) {
                if (Boolean.TRUE.equals(driver.executeScript(
                        "return document.activeElement && document.activeElement.matches(arguments[0])", selector))) {
                    reached.add(selector);
                }
            }
        }
        assertThat(reached).as("%s: controls reached by Tab (the walk: %s)", name, path)
                .containsExactlyInAnyOrder(selectors);
    }

    /**
     * The browser's console since the last look has no error (nor a CSP report), but for {@code expected}: each
     * expected text must appear in one error.
     */
    private static void assertConsole(String name, List<String> expected) {
        List<String> errors = new ArrayList<>();
        for (LogEntry entry : driver.manage().logs().get(LogType.BROWSER)) {
            if (entry.getLevel().intValue() >= Level.SEVERE.intValue()
                    || entry.getMessage().contains("Content Security Policy")) {
                errors.add(entry.getMessage());
            }
        }
        List<String> unexpected = new ArrayList<>(errors);
        for (String text : expected) {
            assertThat(errors).as("%s: the console error expected", name).anySatisfy(e -> assertThat(e).contains(text));
            unexpected.removeIf(e -> e.contains(text));
        }
        assertThat(unexpected).as("%s: browser console errors", name).isEmpty();
    }

    // ---- Helpers ----

    private static WebElement waitFor(By by) {
        return wait.until(d -> {
            List<WebElement> found = d.findElements(by);
            return found.isEmpty() || !found.getFirst().isDisplayed() ? null : found.getFirst();
        });
    }

    private static void waitForText(By by, String text) {
        // A page that renders again between the find and the read leaves a stale element: look again.
        new WebDriverWait(driver, PATIENCE).withMessage(() -> by + " to contain " + text)
                .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until((Function<org.openqa.selenium.WebDriver, Boolean>) d -> {
            List<WebElement> found = d.findElements(by);
            return !found.isEmpty() && found.getFirst().getText().contains(text);
        });
    }

    private static void click(By by) {
        click(waitFor(by));
    }

    private static void click(WebElement element) {
        driver.executeScript("arguments[0].scrollIntoView({block: 'center'})", element);
        element.click();
    }

    private static void type(By by, String text) {
        WebElement input = waitFor(by);
        input.clear();
        input.sendKeys(text);
    }

    private static Path downloaded(String prefix) {
        try (Stream<Path> files = Files.list(downloads)) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix)
                    && f.getFileName().toString().endsWith(".json")).findFirst().orElse(null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The x-quipu-signature's values by name (t, v1, v0). */
    private static Map<String, String> signatures(WebhookReceiver.Received received) {
        Map<String, String> values = new java.util.LinkedHashMap<>();
        for (String part : received.header("x-quipu-signature").split(",")) {
            String[] pair = part.split("=", 2);
            values.put(pair[0], pair[1]);
        }
        return values;
    }

    /** The receiver's own check: HMAC-SHA256 of "timestamp.body" with the whole secret string as the key. */
    private static String sign(String secret, WebhookReceiver.Received received) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update((signatures(received).get("t") + ".").getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(mac.doFinal(received.body()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String axeSource() throws IOException {
        Properties properties = new Properties();
        try (InputStream in = DashboardBrowserTest.class.getResourceAsStream(
                "/META-INF/maven/org.webjars.npm/axe-core/pom.properties")) {
            assertThat(in).as("the axe-core webjar").isNotNull();
            properties.load(in);
        }
        String path = "/META-INF/resources/webjars/axe-core/" + properties.getProperty("version") + "/axe.min.js";
        try (InputStream in = DashboardBrowserTest.class.getResourceAsStream(path)) {
            assertThat(in).as(path).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * The other site's page: a script that asks for a refresh with the CSRF header (it needs a CORS preflight Quipu
     * never grants) and says what it got in the title; and a form posting to the refresh route, which cannot add a
     * header (SameSite=Strict also keeps the cookie off it).
     */
    private static String attackPage() {
        String target = quipu.uri("/v1/auth/refresh").toString();
        return """
                <!doctype html><html><head><title>attack</title></head><body>
                <form id="form" method="POST" action="%s" enctype="text/plain"><input name="refreshToken" value="x"></form>
                <script>
                fetch("%s", {method: "POST", credentials: "include", headers: {"X-Quipu-CSRF": "1"}})
                  .then(r => r.text().then(t => { document.title = "done status " + r.status + " " + t.slice(0, 40); }))
                  .catch(() => { document.title = "done blocked"; });
                </script></body></html>""".formatted(target, target);
    }
}
