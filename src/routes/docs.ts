// Served from the Worker itself: the docs page works with no internet (see the Text rule in wrangler.toml).
import swaggerCss from "swagger-ui-dist/swagger-ui.css";
import swaggerBundle from "swagger-ui-dist/swagger-ui-bundle.js";
import { createRouter } from "../http/router";

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Pathwise API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>`;

const init = `window.ui = SwaggerUIBundle({ url: "/v0/openapi.json", dom_id: "#docs", deepLinking: true, persistAuthorization: true });`;

const ASSET_CACHE = "public, max-age=86400";

export const docsRouter = createRouter()
  .get("/docs", (c) => c.html(page))
  .get("/docs/assets/swagger-ui.css", (c) => c.body(swaggerCss, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": ASSET_CACHE }))
  .get("/docs/assets/swagger-ui-bundle.js", (c) =>
    c.body(swaggerBundle, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": ASSET_CACHE }),
  )
  .get("/docs/assets/init.js", (c) => c.body(init, 200, { "Content-Type": "text/javascript; charset=utf-8" }));
