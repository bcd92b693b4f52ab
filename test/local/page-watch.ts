import type { Page } from "playwright-core";

/** What a page reported while a browser test used it. */
export interface PageWatch {
  /** Content-Security-Policy violations (reported by the page or refused by the browser) */
  cspViolations: string[];
  /** uncaught errors of the page's scripts */
  pageErrors: string[];
  /** console errors, and console messages about refused content */
  consoleErrors: string[];
  /** responses with a status of 400 or more */
  failedResponses: string[];
}

const CSP = /Content.Security.Policy|Refused to/i;

/** Watches a page before it navigates: CSP violations (an init script reports them), script errors, console errors, failed responses. */
export async function watchPage(page: Page): Promise<PageWatch> {
  const watch: PageWatch = { cspViolations: [], pageErrors: [], consoleErrors: [], failedResponses: [] };
  page.on("pageerror", (e) => watch.pageErrors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error" || CSP.test(m.text())) watch.consoleErrors.push(m.text());
    if (CSP.test(m.text())) watch.cspViolations.push(m.text());
  });
  page.on("response", (r) => {
    if (r.status() >= 400) watch.failedResponses.push(`${r.status()} ${r.url()}`);
  });
  // (a string: it runs in the page, whose DOM types these Node tests do not load; init scripts are not subject to the CSP)
  await page.addInitScript(
    'document.addEventListener("securitypolicyviolation", (e) => console.error("Content Security Policy violation: " + e.violatedDirective + " " + e.blockedURI));',
  );
  return watch;
}
