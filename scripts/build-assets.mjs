// `npm run assets`: copies the third-party files the Worker serves as static assets (wrangler.toml
// [assets], directory public/) out of node_modules, so they are never committed and always match the
// installed version. Runs after every install (postinstall) and before start, test and deploy.
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const swagger = dirname(require.resolve("swagger-ui-dist/package.json"));

const copies = [
  [join(swagger, "swagger-ui-bundle.js"), "public/docs/assets/vendor/swagger-ui-bundle.js"],
  [join(swagger, "swagger-ui.css"), "public/docs/assets/vendor/swagger-ui.css"],
];
for (const [from, to] of copies) {
  mkdirSync(dirname(join(root, to)), { recursive: true });
  copyFileSync(from, join(root, to));
}
