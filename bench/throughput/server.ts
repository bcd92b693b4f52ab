// One workerd (Miniflare's API, no `wrangler dev`) running three Workers, each on its own socket:
// the service as deployed (bindings from wrangler.toml via wrangler's own translation, rate limits
// off, static assets left out: the scenarios request API routes only), the
// hello-world reference and the storage floor, which shares the service's D1 database.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { convertV4MiniflareOptions, Miniflare, type V4WorkerOptions } from "miniflare";
import { unstable_getMiniflareWorkerOptions, unstable_splitSqlQuery } from "wrangler";
import { sparePort } from "../../scripts/lib/local-service";
import { partnerSql } from "../../scripts/partner";
import { newPartnerRecords, type PartnerCredentials } from "../../src/services/partners";
import type { Bundles } from "./build";

const ROOT = new URL("../../", import.meta.url).pathname;
/** The deployment's TOKEN_SIGNING_KEY is a secret; the benchmark signs with a fixed one. */
export const SIGNING_KEY = "bench-signing-key-0123456789abcdef0123456789abcdef";

export interface Server {
  mf: Miniflare;
  app: string;
  hello: string;
  floor: string;
  credentials: PartnerCredentials;
  /** the workerd processes of this run (children of this process) */
  pids: number[];
  stop(): Promise<void>;
}

/** Process ids of every workerd process descending from this process. */
export function workerdPids(): number[] {
  const children = new Map<number, number[]>();
  const comm = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const name = stat.slice(stat.indexOf("(") + 1, close);
      const ppid = Number(stat.slice(close + 2).split(" ")[1]);
      const pid = Number(entry);
      comm.set(pid, name);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      /* exited */
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      if (comm.get(child) === "workerd") out.push(child);
      walk(child);
    }
  };
  walk(process.pid);
  return out;
}

export async function startServer(bundles: Bundles, persistDir: string, options: { inspectorPort?: number; appRoot?: string } = {}): Promise<Server> {
  const { inspectorPort, appRoot = ROOT } = options;
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(appRoot, "wrangler.toml"));
  // The bundle is one ES module: no module rules. No static assets: the scenarios request API routes only.
  const { assets: _assets, modulesRules: _rules, ...appOptions } = workerOptions;
  // Queue batches wait at most 1 s instead of 5-10 s, so a round's deferred work (the last partial
  // batch) is done, and counted, within a short idle wait. Under load batches fill by size (100
  // messages) long before either timeout; smaller batches only make the consumers costlier.
  const queueConsumers = Object.fromEntries(
    Object.entries(appOptions.queueConsumers as Record<string, Record<string, unknown>>).map(([q, c]) => [q, { ...c, maxBatchTimeout: 1 }]),
  );
  const [appPort, helloPort, floorPort] = [await sparePort(), await sparePort(), await sparePort()] as [number, number, number];
  const d1Id = Object.values(workerOptions.d1Databases as Record<string, { id: string }>)[0]?.id ?? "DB";
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      ...(inspectorPort ? { inspectorPort } : {}),
      // D1, Durable Objects and queues under persistDir/{d1,do,queues} (the per-plugin *Persist options
      // of Miniflare 3 are ignored by this Miniflare's v4 options: state would land in its temp dir)
      resourcePersistencePath: persistDir,
      log: undefined,
      workers: [
        {
          ...(appOptions as V4WorkerOptions),
          name: "pathwise",
          queueConsumers,
          modules: true,
          scriptPath: bundles.app,
          modulesRoot: dirname(bundles.app),
          bindings: { ...(appOptions.bindings as Record<string, string>), RATE_LIMIT_MULTIPLIER: "off", TOKEN_SIGNING_KEY: SIGNING_KEY },
          unsafeDirectSockets: [{ host: "127.0.0.1", port: appPort }],
        },
        {
          name: "hello",
          modules: true,
          scriptPath: bundles.hello,
          modulesRoot: dirname(bundles.hello),
          compatibilityDate: workerOptions.compatibilityDate,
          unsafeDirectSockets: [{ host: "127.0.0.1", port: helloPort }],
        },
        {
          name: "floor",
          modules: true,
          scriptPath: bundles.floor,
          modulesRoot: dirname(bundles.floor),
          compatibilityDate: workerOptions.compatibilityDate,
          d1Databases: { DB: d1Id },
          durableObjects: { FLOOR: { className: "FloorObject", useSQLite: true } },
          unsafeDirectSockets: [{ host: "127.0.0.1", port: floorPort }],
        },
      ] as V4WorkerOptions[],
    }),
  );
  await mf.ready;
  const db = await mf.getD1Database("DB", "pathwise");
  for (const file of readdirSync(join(ROOT, "migrations"))
    .filter((f) => /^\d{4}_.*\.sql$/.test(f))
    .sort()) {
    const statements = unstable_splitSqlQuery(readFileSync(join(ROOT, "migrations", file), "utf8"));
    await db.batch(statements.map((s) => db.prepare(s)));
  }
  const records = await newPartnerRecords("Throughput bench");
  await db.batch(unstable_splitSqlQuery(partnerSql(records)).map((s) => db.prepare(s)));
  const { credentials } = records;
  return {
    mf,
    app: `http://127.0.0.1:${appPort}`,
    hello: `http://127.0.0.1:${helloPort}`,
    floor: `http://127.0.0.1:${floorPort}`,
    credentials,
    pids: workerdPids(),
    stop: () => mf.dispose(),
  };
}
