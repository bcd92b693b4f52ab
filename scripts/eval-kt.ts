/**
 * Knowledge-tracing evaluation CLI.
 *   npm run --silent eval:kt -- --train TRAIN --test TEST --qmat QMAT --out PRED [--params-out PARAMS.json]
 * Calibrates the learner model on TRAIN only, then predicts every TEST row online, in order, with
 * frozen parameters (each prediction uses only that learner's earlier TEST rows), writes `p` per row
 * to PRED and prints AUC / RMSE / accuracy.
 */
import { writeFileSync } from "node:fs";
import { accuracy, applyGraded, auc, type CalibrateOptions, calibrate, initialLearnerState, logLoss, predictCorrect, rmse } from "../src/model/index";
import { readQmat, readRows, skillSetMap, timeScale, toSequences } from "./kt-data";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function main(): void {
  const trainPath = arg("train");
  const testPath = arg("test");
  const qmatPath = arg("qmat");
  const outPath = arg("out");
  const paramsOut = arg("params-out");
  if (!trainPath || !testPath || !qmatPath || !outPath) {
    console.error("usage: eval-kt --train TRAIN --test TEST --qmat QMAT --out PRED [--params-out PARAMS.json] [--calibrate-options JSON] [--verbose]");
    process.exit(2);
  }
  const t0 = Date.now();
  const verbose = process.argv.includes("--verbose");
  const qmat = readQmat(qmatPath);
  const trainRows = readRows(trainPath);
  const testRows = readRows(testPath);
  const scale = timeScale(trainRows) || timeScale(testRows);
  const sets = skillSetMap(trainRows, qmat);
  const train = toSequences(trainRows, qmat, scale, sets);
  const test = toSequences(testRows, qmat, scale, sets);

  const extra = arg("calibrate-options");
  const options: CalibrateOptions = extra ? (JSON.parse(extra) as CalibrateOptions) : {};
  const params = calibrate(train.seqs, { ...options, log: verbose ? (m) => console.error(m) : undefined });
  const t1 = Date.now();
  if (paramsOut) writeFileSync(paramsOut, JSON.stringify(params));

  const p = new Float64Array(testRows.length);
  const y = new Float64Array(testRows.length);
  test.seqs.forEach((seq, u) => {
    const state = initialLearnerState(params);
    const idx = test.rowIndex[u] ?? [];
    seq.forEach((ev, j) => {
      if (ev.kind !== "graded") return;
      const row = idx[j] as number;
      p[row] = predictCorrect(state, params, ev, ev.timeMs ?? 0);
      y[row] = ev.correct === 1 || ev.correct === true ? 1 : 0;
      applyGraded(state, params, undefined, ev);
    });
  });
  const t2 = Date.now();
  const lines = ["p"];
  for (let i = 0; i < p.length; i++) lines.push((p[i] as number).toFixed(6));
  writeFileSync(outPath, `${lines.join("\n")}\n`);
  console.log(`train: ${trainRows.length} rows, ${train.seqs.length} learners; test: ${testRows.length} rows, ${test.seqs.length} learners`);
  console.log(`AUC ${auc(p, y).toFixed(4)}  RMSE ${rmse(p, y).toFixed(4)}  accuracy ${accuracy(p, y).toFixed(4)}  log-loss ${logLoss(p, y).toFixed(4)}`);
  console.log(`time: calibrate ${((t1 - t0) / 1000).toFixed(1)}s, predict ${((t2 - t1) / 1000).toFixed(1)}s`);
  if (verbose)
    console.error(JSON.stringify(params.meta), JSON.stringify(Object.fromEntries(params.featureNames.map((n, i) => [n, +(params.dense[i] ?? 0).toFixed(3)]))));
}

main();
