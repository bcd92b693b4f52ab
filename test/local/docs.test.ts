import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Chromium, launchChromium } from "../../scripts/lib/browser";
import { watchPage } from "./page-watch";

/**
 * The API reference as a browser gets it from the Worker served by `wrangler dev` (static assets in
 * front of the Worker, as on Cloudflare): the page, and every file it references, from this origin;
 * and the page in a real browser (Debian's headless Chromium, installed if missing, never skipped).
 */
const service = inject("localService");
let browser: Chromium;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe("GET /docs (served)", () => {
  it("serves the page and every script and style it references from this origin, with no external URL", async () => {
    const page = await fetch(`${service.base}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    // every reference but inline data: URLs (the empty favicon)
    const refs = [...html.matchAll(/(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!).filter((ref) => !ref.startsWith("data:"));
    expect(refs.length).toBeGreaterThanOrEqual(3);
    for (const ref of refs) {
      const asset = await fetch(`${service.base}${ref}`);
      expect(asset.status, ref).toBe(200);
      const type = asset.headers.get("content-type") ?? "";
      if (ref.endsWith(".js")) expect(type, ref).toMatch(/javascript/);
      if (ref.endsWith(".css")) expect(type, ref).toMatch(/text\/css/);
      expect(asset.headers.get("x-content-type-options"), ref).toBe("nosniff");
      const body = await asset.text();
      expect(body.length, ref).toBeGreaterThan(10);
      if (!ref.includes("/vendor/")) expect(body, ref).not.toMatch(/https?:\/\//);
    }
    const init = await (await fetch(`${service.base}/docs/assets/init.js`)).text();
    expect(init).toContain("/v0/openapi.json");
  });

  it("serves the installed Swagger UI version, byte for byte", async () => {
    const served = await (await fetch(`${service.base}/docs/assets/vendor/swagger-ui-bundle.js`)).text();
    expect(served).toBe(readFileSync("node_modules/swagger-ui-dist/swagger-ui-bundle.js", "utf8"));
  });
});

describe("GET /docs in Chromium", () => {
  // Swagger UI must render every operation under the page's Content-Security-Policy, with no CSP violation and no script error.
  it("renders the operations of /v0/openapi.json under the page CSP, with no violation and no error", async () => {
    const page = await browser.context.newPage();
    const watch = await watchPage(page);
    const res = await page.goto(`${service.base}/docs`, { waitUntil: "networkidle" });
    expect(res?.status()).toBe(200);
    expect(res?.headers()["content-security-policy"]).toMatch(/default-src 'none'/);
    await page.waitForSelector(".opblock", { timeout: 60_000 });
    const operations = await page.locator(".opblock").count();
    const documented = Object.values(((await (await fetch(`${service.base}/v0/openapi.json`)).json()) as { paths: Record<string, object> }).paths).reduce(
      (n, item) => n + Object.keys(item).length,
      0,
    );
    expect(operations).toBe(documented);
    // the page is styled by its own stylesheet (a blocked stylesheet leaves Swagger UI unstyled)
    const display = await page
      .locator(".swagger-ui .opblock-summary")
      .first()
      .evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { display: string } }).getComputedStyle(el).display);
    expect(display).toBe("flex");
    // "Try it out" calls the server the page came from first (the document lists localhost:8787 and a deployment)
    const servers = await page.locator(".servers select option").evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value));
    expect(servers[0]).toBe(new URL(service.base).origin);
    expect(servers).toContain("http://localhost:8787");
    await page.screenshot({ path: join(tmpdir(), "pathwise-docs-page.png") }); // for a person to look at
    expect([...watch.consoleErrors.map((m) => `console: ${m}`), ...watch.pageErrors.map((m) => `page error: ${m}`), ...watch.failedResponses]).toEqual([]);
  });

  // The page shares an origin (and so localStorage) with the instructor dashboard (docs/security.md "Controls").
  it("never keeps a token or client secret typed into Authorize: not in localStorage, gone on reload; an old stored one is removed", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${service.base}/docs`, { waitUntil: "networkidle" });
    await page.waitForSelector(".opblock", { timeout: 60_000 });
    // what an earlier version of the page (persistAuthorization: true) left behind
    await page.evaluate(() =>
      (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem("authorized", '{"Bearer":{}}'),
    );
    await page.reload({ waitUntil: "networkidle" });
    await page.waitForSelector(".opblock", { timeout: 60_000 });
    type Ui = {
      ui: {
        preauthorizeBasic(n: string, u: string, p: string): void;
        preauthorizeApiKey(n: string, v: string): void;
        authSelectors: { authorized(): { size: number } };
      };
    };
    const stored = () =>
      page.evaluate(() => (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem("authorized"));
    expect(await stored()).toBeNull();
    await page.evaluate(() => {
      const { ui } = globalThis as unknown as Ui;
      ui.preauthorizeApiKey("Bearer", "a-typed-access-token");
      ui.preauthorizeBasic("Basic", "a-client-id", "a-client-secret");
    });
    expect(await page.evaluate(() => (globalThis as unknown as Ui).ui.authSelectors.authorized().size)).toBe(2);
    const storage = await page.evaluate(() => JSON.stringify({ ...(globalThis as unknown as { localStorage: Record<string, string> }).localStorage }));
    expect(storage).not.toContain("a-typed-access-token");
    expect(storage).not.toContain("a-client-secret");
    await page.reload({ waitUntil: "networkidle" });
    await page.waitForSelector(".opblock", { timeout: 60_000 });
    expect(await page.evaluate(() => (globalThis as unknown as Ui).ui.authSelectors.authorized().size)).toBe(0);
    await page.close();
  });
});
