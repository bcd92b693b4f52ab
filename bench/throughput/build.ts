// Builds what the throughput benchmark runs: the Worker exactly as `wrangler deploy --dry-run`
// bundles it for deployment, and the two reference Workers (hello-world, storage floor) with esbuild.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { wrangler } from "../../scripts/lib/wrangler";

const ROOT = new URL("../../", import.meta.url).pathname;

export interface Bundles {
  /** the deploy bundle's entry module (ES module) */
  app: string;
  appBytes: number;
  appGzipBytes: number;
  hello: string;
  floor: string;
}

/** `wrangler deploy --dry-run --outdir <dir>`: the bundle a deployment uploads. */
function deployBundle(outdir: string, root: string): string {
  wrangler(["deploy", "--dry-run", "--outdir", outdir], root);
  return join(outdir, "index.js");
}

async function esbuildWorker(entry: string, outfile: string): Promise<string> {
  await build({
    entryPoints: [join(ROOT, "bench/throughput/workers", entry)],
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    external: ["cloudflare:workers"],
    minify: false,
    logLevel: "error",
  });
  return outfile;
}

/** `appRoot`: the checkout whose Worker is measured (default this one; another to compare versions). */
export async function buildAll(outdir: string, appRoot = ROOT): Promise<Bundles> {
  const app = deployBundle(join(outdir, "app"), appRoot);
  const code = readFileSync(app);
  return {
    app,
    appBytes: code.byteLength,
    appGzipBytes: gzipSync(code, { level: 9 }).byteLength,
    hello: await esbuildWorker("hello.ts", join(outdir, "hello.js")),
    floor: await esbuildWorker("floor.ts", join(outdir, "floor.js")),
  };
}
