// `npm run assets`: the files the Worker serves as static assets (wrangler.toml [assets], directory
// public/) and the client's JavaScript build, made from what is installed, so none of it is committed:
// - Swagger UI for /docs, copied out of node_modules;
// - the instructor dashboard (/dashboard): dashboard/*.ts bundled by esbuild with Observable Plot and
//   the client, plus its page and style sheet;
// - client/dist/index.js: pathwise/client as one ES module (openapi-fetch inside) for Node 22, Workers
//   and browsers (package.json "exports").
// Runs after every install (postinstall) and before start, test and deploy.
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const swagger = dirname(require.resolve("swagger-ui-dist/package.json"));

const copies = [
  [join(swagger, "swagger-ui-bundle.js"), "public/docs/assets/vendor/swagger-ui-bundle.js"],
  [join(swagger, "swagger-ui.css"), "public/docs/assets/vendor/swagger-ui.css"],
  ["dashboard/index.html", "public/dashboard.html"],
  ["dashboard/dashboard.css", "public/dashboard/assets/dashboard.css"],
];
for (const [from, to] of copies) {
  mkdirSync(dirname(join(root, to)), { recursive: true });
  copyFileSync(from.startsWith("/") ? from : join(root, from), join(root, to));
}

const common = { bundle: true, format: "esm", target: "es2022", legalComments: "none", logLevel: "warning", absWorkingDir: root };
await Promise.all([
  build({ ...common, entryPoints: ["dashboard/main.ts"], outfile: "public/dashboard/assets/dashboard.js", platform: "browser", minify: true }),
  build({ ...common, entryPoints: ["client/index.ts"], outfile: "client/dist/index.js", platform: "neutral", mainFields: ["module", "main"] }),
]);
