import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { createPathwiseClient, type PathwiseClient } from "../../client";
import { type Chromium, launchChromium } from "../../scripts/lib/browser";

import { DEMO_INSTRUCTOR, seedDemo } from "../../scripts/lib/seed-demo";
import { type PageWatch, watchPage } from "./page-watch";

/**
 * The instructor dashboard in real headless Chromium (Debian's chromium through playwright-core)
 * against the Worker under `wrangler dev` with the demo class `npm start` seeds. Chromium is found (or
 * installed) by test/setup/local.ts, which also runs the shared Worker; without Chromium the run fails, saying how to get it.
 */

const service = inject("localService");
let chromium: Chromium;
let seeded: Record<string, any>;
let instructor: PathwiseClient;
let instructorToken: string;
let learnerToken: string;
const requests: { url: string; authorization: string | undefined }[] = [];
/** The pages a test opened: none may report a CSP violation or a script error (checked after each test). */
let watches: PageWatch[] = [];

const link = (token: string) => `${service.base}/dashboard?instance=${seeded.learning_instance_id}#token=${token}`;

async function open(token: string, width = 1280): Promise<Page> {
  const page = await chromium.context.newPage();
  await page.setViewportSize({ width, height: 900 });
  page.on("request", (r) => requests.push({ url: r.url(), authorization: r.headers().authorization }));
  watches.push(await watchPage(page));
  await page.goto(link(token));
  await page.waitForSelector("#status-table, [data-testid=error]", { timeout: 30_000 });
  return page;
}

beforeAll(async () => {
  seeded = await seedDemo(service.base, service.credentials);
  const credentials = { clientId: service.credentials.client_id, clientSecret: service.credentials.client_secret };
  instructor = createPathwiseClient({ baseUrl: service.base, credentials, scope: DEMO_INSTRUCTOR });
  instructorToken = await instructor.accessToken();
  learnerToken = await instructor.as("demo-learner-1").accessToken();
  chromium = await launchChromium();
}, 180_000);

afterEach(() => {
  for (const w of watches) {
    expect(w.cspViolations).toEqual([]);
    expect(w.pageErrors).toEqual([]);
  }
  watches = [];
});

afterAll(async () => {
  await chromium?.close();
});

describe("/dashboard in headless Chromium", () => {
  it("serves the page with nosniff and a Content-Security-Policy allowing only its own origin", async () => {
    const res = await fetch(`${service.base}/dashboard`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/connect-src 'self'(;|$)/);
    expect(csp).not.toContain("unsafe-inline");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    for (const asset of ["/dashboard/assets/dashboard.js", "/dashboard/assets/dashboard.css"]) {
      const a = await fetch(`${service.base}${asset}`);
      expect(a.status, asset).toBe(200);
      expect(a.headers.get("x-content-type-options"), asset).toBe("nosniff");
      expect(await a.text(), asset).not.toMatch(/https?:\/\/(?!www\.w3\.org)[a-z]/i);
    }
  });

  it("loads the demo class: its name, its goal and one row per learner, the same as the API's table", async () => {
    const page = await open(instructorToken);
    expect(await page.textContent("#instance-name")).toBe("Pre-algebra (demo)");
    expect(await page.$eval("#goal-select option:checked", (o) => o.textContent)).toBe("Unit 3: solving equations");

    const api = [];
    for await (const row of instructor.statusAndProgress(seeded.learning_instance_id, { goal_ids: [seeded.goal_id] })) api.push(row);
    const shown = await page.$$eval("#status-table tbody tr", (rows) =>
      rows.map((tr) => {
        const cells = tr.querySelectorAll("td");
        return {
          id: tr.getAttribute("data-registration-id"),
          status: cells[0]!.getAttribute("data-status"),
          progress: Number(cells[1]!.getAttribute("data-progress")),
          work: Number(cells[2]!.getAttribute("data-work-remaining")),
          text: [...cells].map((c) => c.textContent?.trim()),
        };
      }),
    );
    expect(shown.map((r) => r.id)).toEqual(seeded.learner_registration_ids);
    expect(shown).toHaveLength(api.length);
    for (const [i, row] of api.entries()) {
      const cell = row.status_and_progress[0]!;
      expect(shown[i]).toMatchObject({ id: row.registration_id, status: cell.status, progress: cell.progress, work: cell.work_remaining });
      expect(shown[i]!.text[1]).toBe(`${Math.round(cell.progress * 100)}%`);
    }

    // sortable: by progress, descending on the second click
    await page.click("#status-table th[data-key=progress] button");
    await page.click("#status-table th[data-key=progress] button");
    expect(await page.getAttribute("#status-table th[data-key=progress]", "aria-sort")).toBe("descending");
    const progress = await page.$$eval("#status-table tbody tr td:nth-of-type(2)", (tds) => tds.map((td) => Number(td.getAttribute("data-progress"))));
    expect(progress).toEqual([...progress].sort((a, b) => b - a));
    await page.close();
  });

  it("renders the charts (heatmap cells, score intervals, activity bars) with table fallbacks, learners to watch, and no CSP violation", async () => {
    const page = await open(instructorToken);
    const learners = seeded.learner_registration_ids.length;
    const objectives = await page.$$eval("#proficiency-table thead th", (ths) => ths.length - 1);
    expect(objectives).toBeGreaterThanOrEqual(2);
    expect(await page.$$eval("#proficiency-chart svg[aria-label] g[aria-label=cell] rect", (r) => r.length)).toBe(learners * objectives);
    expect(await page.$$eval("#scores-chart svg[aria-label] g[aria-label=dot] circle", (c) => c.length)).toBe(learners);
    expect(await page.$$eval("#activity-chart svg[aria-label] g[aria-label=bar] rect", (r) => r.length)).toBeGreaterThan(0);
    expect(await page.$$eval("#scores-table tbody tr", (r) => r.length)).toBe(learners);
    expect(await page.$$eval("#activity-table tbody tr", (r) => r.length)).toBe(learners);
    const box = await page.$eval("#proficiency-chart svg[aria-label]", (svg) => svg.getBoundingClientRect().height);
    expect(box).toBeGreaterThan(100);
    const watch = await instructor.POST("/v0/learning-instances/{id}/metrics/groups", {
      params: { path: { id: seeded.learning_instance_id } },
      body: { goal_ids: [seeded.goal_id] },
    });
    const groups = watch.groups.filter((g) => g.registration_ids.length > 0);
    expect(await page.$$eval("#watch li", (li) => li.map((l) => l.getAttribute("data-group")))).toEqual(groups.map((g) => g.group));
    expect(await page.$$eval("#watch li p:first-of-type", (p) => p.map((x) => x.textContent))).toEqual(groups.map((g) => g.reason));
    await page.close();
  });

  it("fits a phone's width: nothing but the tables and charts scrolls sideways", async () => {
    const page = await open(instructorToken, 390);
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    expect(await page.$$eval("#status-table tbody tr", (r) => r.length)).toBe(seeded.learner_registration_ids.length);
    await page.close();
  });

  it("refuses a learner's token: an error page, no data", async () => {
    const page = await open(learnerToken);
    expect(await page.textContent("[data-testid=error] h1")).toBe("Not allowed");
    expect(await page.$("#status-table")).toBeNull();
    expect(await page.$("#proficiency-chart")).toBeNull();
    expect(await page.isHidden("#context")).toBe(true);
    await page.close();
  });

  it("never puts the token in a request URL, a cookie or the address bar; sends it only as a Bearer header", async () => {
    const page = await open(instructorToken);
    expect(page.url()).not.toContain(instructorToken);
    expect(page.url()).not.toContain("token=");
    expect(await chromium.context.cookies()).toEqual([]);
    expect(requests.length).toBeGreaterThan(10);
    for (const token of [instructorToken, learnerToken]) {
      for (const r of requests) expect(r.url, r.url).not.toContain(token);
    }
    const api = requests.filter((r) => new URL(r.url).pathname.startsWith("/v0/"));
    expect(api.length).toBeGreaterThan(5);
    for (const r of api) expect(r.authorization, r.url).toMatch(/^Bearer pw1\./);
    // every request went to this origin (no CDN)
    for (const r of requests) expect(r.url.startsWith(service.base) || r.url.startsWith("data:"), r.url).toBe(true);
    // a reload without the fragment still works from sessionStorage
    await page.reload();
    await page.waitForSelector("#status-table", { timeout: 30_000 });
    await page.close();
  });
});
