// `npm run dashboard:screenshots`: the demo class's dashboard at laptop and phone width, for
// docs/dashboard.md (docs/dashboard-desktop.png, docs/dashboard-phone.png). Starts its own Worker under
// `wrangler dev` (a private state directory and port), seeds the demo data `npm start` seeds, and opens
// the link `npm start` prints in headless Chromium.
import { launchChromium } from "./lib/browser";
import { startLocalService } from "./lib/local-service";
import { dashboardLink, seedDemo } from "./lib/seed-demo";

const service = await startLocalService();
try {
  const seeded = await seedDemo(service.base, service.credentials);
  // predicted scores read the account projections, merged through the projections queue (10 s batches)
  await new Promise((r) => setTimeout(r, 20_000));
  const url = await dashboardLink(service.base, service.credentials, seeded);
  const chromium = await launchChromium();
  try {
    const page = await chromium.context.newPage();
    for (const [name, width, height] of [
      ["desktop", 1280, 900],
      ["phone", 390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page.goto(url);
      await page.waitForSelector("#status-table", { timeout: 30_000 });
      await page.screenshot({ path: `docs/dashboard-${name}.png`, fullPage: true });
      console.log(`docs/dashboard-${name}.png`);
    }
  } finally {
    await chromium.close();
  }
} finally {
  await service.stop();
}
