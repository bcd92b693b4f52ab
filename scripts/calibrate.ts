/**
 * Offline calibration of the learner model's item and predictor parameters from historical events.
 *   npm run --silent calibrate -- --train TRAIN --qmat QMAT --out PARAMS.json [--calibrate-options JSON] [--verbose]
 * TRAIN is a Gervet-format event file (user_id item_id timestamp correct skill_id; tab or comma separated).
 * Writes ModelParams as plain JSON (what the Durable Object loads). With --service, writes the
 * population-level parameters the Worker ships: npm run --silent calibrate -- --train ... --qmat ...
 * --out src/model/service-params.json --service
 *
 * With --graph GRAPH_UUID [--remote]: also loads the calibrated item parameters into the service's
 * item_params table for that graph (local dev database by default), so a partner's history seeds
 * the item bank that online refinement then keeps current. TRAIN's item_id must then be the
 * modules' mref- labels and QMAT's skill ids the objectives' lref- labels.
 */
import { writeFileSync } from "node:fs";
import { type CalibrateOptions, calibrate, type ModelParams } from "../src/model/index";
import { readQmat, readRows, skillSetMap, timeScale, toSequences } from "./kt-data";
import { d1Execute, sqlLiteral } from "./lib/wrangler";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const trainPath = arg("train");
const qmatPath = arg("qmat");
const outPath = arg("out");
if (!trainPath || !qmatPath || !outPath) {
  console.error("usage: calibrate --train TRAIN --qmat QMAT --out PARAMS.json [--service] [--calibrate-options JSON] [--verbose]");
  process.exit(2);
}
const t0 = Date.now();
const rows = readRows(trainPath);
const qmat = readQmat(qmatPath);
const { seqs } = toSequences(rows, qmat, timeScale(rows), skillSetMap(rows, qmat));
const extra = arg("calibrate-options");
const options: CalibrateOptions = extra ? (JSON.parse(extra) as CalibrateOptions) : {};
const params = calibrate(seqs, { ...options, log: process.argv.includes("--verbose") ? (m) => console.error(m) : undefined });
// --service: the population-level parameters the Worker ships (src/model/service-params.json). The
// training data's own items and objectives are dropped: a partner's graph has its own, which start
// from the global difficulty and are refined online (item_params).
const service = process.argv.includes("--service");
const out = service
  ? { ...params, items: {}, objectives: {}, meta: { ...params.meta, source: `${trainPath.split("/").slice(-2).join("/")} via npm run calibrate -- --service` } }
  : params;
writeFileSync(outPath, service ? `${JSON.stringify(out, null, 1)}\n` : JSON.stringify(out));
console.log(`calibrated on ${rows.length} rows / ${seqs.length} learners in ${((Date.now() - t0) / 1000).toFixed(1)}s -> ${outPath}`);

const graph = arg("graph")?.toLowerCase();
if (graph) {
  const target = process.argv.includes("--remote") ? "remote" : "local";
  const count = loadItemBank(params, graph, target);
  console.log(`loaded ${count} item parameter rows for graph ${graph} into the ${target} database`);
}

/** Upserts the calibrated item entries into item_params (what the RegistrationObjects read). */
function loadItemBank(p: ModelParams, graphUuid: string, target: "local" | "remote"): number {
  const now = Date.now();
  const rows = Object.entries(p.items).map(
    ([module, [easiness, difficulty, observations, shift]]) =>
      `(${[graphUuid, module, easiness, difficulty, observations, shift, now].map(sqlLiteral).join(", ")})`,
  );
  const statements: string[] = [];
  for (let i = 0; i < rows.length; i += 500) {
    statements.push(
      `INSERT INTO item_params (graph_id, module, easiness, difficulty, observations, shift, updated_at) VALUES ${rows.slice(i, i + 500).join(", ")} ` +
        "ON CONFLICT (graph_id, module) DO UPDATE SET easiness = excluded.easiness, difficulty = excluded.difficulty, observations = excluded.observations, shift = excluded.shift, updated_at = excluded.updated_at;",
    );
  }
  if (statements.length) d1Execute(statements.join("\n"), target);
  return rows.length;
}
