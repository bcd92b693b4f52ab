import { createRouter } from "../http/router";
import { pageSecurity } from "../http/security-headers";

/**
 * The API reference page. Swagger UI's files are Workers static assets (public/docs/assets/, copied
 * out of node_modules by `npm run assets`), so the page works with no internet and the Worker's
 * upload carries no copy of them. The page CSP (pageSecurity) lets it load nothing else.
 */
const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Pathwise API</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/docs/assets/vendor/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="/docs/assets/vendor/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>`;

export const docsRouter = createRouter()
  .get("/docs", pageSecurity(), (c) => c.html(page))
  // Routes are strict about a trailing slash; a person typing /docs/ means the page.
  .get("/docs/", (c) => c.redirect("/docs", 308));
