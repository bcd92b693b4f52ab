/**
 * Graph ingest benchmark (not a test): npx tsx bench/graph-ingest.ts [--modules N] [--objectives N] [--runs N]
 * Generates a 20,000-module / 2,000-objective graph and times the pure steps of ingest
 * (validation, runtime build), the stored sizes, and what a Durable Object does on load:
 * parse the stored runtime JSON (joined from its parts) and index it. The same steps end to end in
 * workerd (ingest request, Durable Object graph load): bench/graph-load.ts.
 */
import { buildRuntimeGraph } from "../src/graphs/build-runtime-graph";
import { encodeRuntimeGraph } from "../src/graphs/runtime-codec";
import { indexGraph, type RuntimeGraph } from "../src/graphs/runtime-graph";
import { validateGraph } from "../src/graphs/validate-graph";
import { parseStoredRuntime } from "../src/reads/graph-versions";
import { BLOB_PART_CHARS } from "../src/services/graph-store";
import { syntheticGraph } from "./lib/synthetic-graph";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const modules = arg("modules", 20_000);
const objectives = arg("objectives", 2_000);
const runs = arg("runs", 7);

function time<T>(fn: () => T): { ms: number[]; value: T } {
  const ms: number[] = [];
  let value!: T;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    value = fn();
    ms.push(performance.now() - t0);
  }
  return { ms, value };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number[]) => `${median(ms).toFixed(1).padStart(8)} ms  (min ${Math.min(...ms).toFixed(1)}, max ${Math.max(...ms).toFixed(1)})`;
const mib = (chars: number) => `${(chars / 1024 / 1024).toFixed(2)} MiB`;

const doc = syntheticGraph(modules, objectives);
const docJson = JSON.stringify(doc);
const parseDoc = time(() => JSON.parse(docJson));
const validation = time(() => validateGraph(doc));
if (!validation.value.valid) throw new Error(`synthetic graph invalid: ${JSON.stringify(validation.value.errors.slice(0, 3))}`);
const build = time(() => buildRuntimeGraph(doc, { id: "00000000-0000-4000-8000-000000000000", version: 1 }));
const runtime = build.value;
const serialize = time(() => JSON.stringify(encodeRuntimeGraph(runtime)));
const storedJson = serialize.value;
const parts: string[] = [];
for (let i = 0; i < storedJson.length; i += BLOB_PART_CHARS) parts.push(storedJson.slice(i, i + BLOB_PART_CHARS));
const load = time(() => parseStoredRuntime(parts.join("")));
const parseOnly = time(() => JSON.parse(storedJson));
const indexOnly = time(() => indexGraph(runtime));
const plainJson = JSON.stringify(runtime);
const plainLoad = time(() => indexGraph(JSON.parse(plainJson) as RuntimeGraph));

console.log(
  `graph: ${modules} modules (+${doc.bundles!.length} bundles), ${objectives} objectives, ${validation.value.counts.prerequisites} prerequisites; median of ${runs} runs, Node ${process.version}`,
);
console.log("");
console.log("step                                      time");
console.log("----------------------------------------  ------------------------------------");
console.log(`parse request JSON (${mib(docJson.length)})`.padEnd(42) + fmt(parseDoc.ms));
console.log("validateGraph".padEnd(42) + fmt(validation.ms));
console.log("buildRuntimeGraph".padEnd(42) + fmt(build.ms));
console.log("encode + JSON.stringify (stored form)".padEnd(42) + fmt(serialize.ms));
console.log("DO load: join + parse + decode + index".padEnd(42) + fmt(load.ms));
console.log("  of which JSON.parse".padEnd(42) + fmt(parseOnly.ms));
console.log("  of which indexGraph".padEnd(42) + fmt(indexOnly.ms));
console.log("(plain RuntimeGraph JSON: parse + index)".padEnd(42) + fmt(plainLoad.ms));
console.log("");
console.log(
  `request document JSON: ${mib(docJson.length)}; stored runtime JSON: ${mib(storedJson.length)} in ${parts.length} part(s) of <= ${BLOB_PART_CHARS / 1024} Ki chars ` +
    `(plain RuntimeGraph JSON would be ${mib(plainJson.length)})`,
);
