/**
 * Reliability of predicted scores on Gervet-format knowledge-tracing data.
 *   npm run --silent eval:score -- --train TRAIN --test TEST --qmat QMAT [--horizon 4]
 *        [--fit-params A.json] [--params FULL.json] [--save-params DIR] [--verbose]
 *
 * Protocol (docs/analytics.md):
 * - Every learner's answers on a skill (Q-matrix skill) are cut into consecutive windows of `horizon`
 *   answers (the last one may be shorter). For each window, the prediction is made from the learner
 *   state just before the window's first answer (all earlier answers of the learner, on any skill):
 *   the state is published as a projection message, merged into a projection, and the endpoint code
 *   (predictedScores) computes the percentiles at 10/50/90 of the share of right answers among the
 *   window's n answers (n = the window's actual length).
 * - An observed share x/n "falls below" a percentile q with the fraction of its cell
 *   [max(0,(x−½)/n), min(1,(x+½)/n)) lying below q (the continuous representation the percentiles are
 *   computed in; equivalent to a randomized PIT averaged over its randomization).
 * - Calibration (logit shifts, variance scale) is fitted on TRAIN only: the model is calibrated on 80%
 *   of the TRAIN learners, the score calibration fitted on the windows of the other 20%. The model is
 *   then calibrated on all of TRAIN and the TEST windows are scored with the shipped calibration
 *   (src/analytics/score-params.ts) and, for comparison, the one fitted now and none.
 * Item pools per skill: calibrated difficulties of the items the Q-matrix tags with the skill (itemPool).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { objectiveBelief } from "../src/analytics/beliefs";
import {
  calibratedTerm,
  fitCalibration,
  fitSharedFromOwn,
  type GroupScoreCase,
  IDENTITY_CALIBRATION,
  type ItemPool,
  reliability,
  type ScoreCalibration,
  type ScoreCase,
} from "../src/analytics/calibration";
import { itemPool, predictedScores } from "../src/analytics/predicted-score";
import { applyProjectionMessage } from "../src/analytics/projection";
import { projectionMessages } from "../src/analytics/projection-publish";
import { groupCell, groupHalfCell, shareDistribution } from "../src/analytics/score-distribution";
import { SCORE_CALIBRATION, SCORE_HORIZON } from "../src/analytics/score-params";
import { applyGraded, calibrate, initialLearnerState, type LearnerEvent, type ModelParams } from "../src/model/index";
import { type KtRow, readQmat, readRows, skillSetMap, timeScale, toSequences } from "./kt-data";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const LEVELS = [10, 50, 90];

/** Deterministic 80/20 split of learners (FNV-1a of the user id). */
function heldOut(user: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < user.length; i++) {
    h ^= user.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % 5 === 0;
}

interface EvalCase extends ScoreCase {
  skill: string;
  /** the window is shorter than the horizon (the learner's last answers on the skill) */
  short: boolean;
  /** graded answers of the learner before the window (all skills) */
  globalEvidence: number;
  projection: ReturnType<typeof applyProjectionMessage>;
}

function pools(params: ModelParams, qmat: Map<string, string[]>): Map<string, ItemPool> {
  const ds = new Map<string, number[]>();
  for (const [item, skills] of qmat) {
    const e = params.items[item];
    if (!e) continue;
    for (const s of skills) {
      let a = ds.get(s);
      if (!a) {
        a = [];
        ds.set(s, a);
      }
      a.push(e[1]);
    }
  }
  const out = new Map<string, ItemPool>();
  for (const [s, a] of ds) out.set(s, itemPool(a, params.objectives[s]?.[3] ?? params.globalDifficulty));
  return out;
}

/** Windows of `horizon` answers per (learner, skill), with the projection of the state just before each. */
function collectCases(seqs: LearnerEvent[][], params: ModelParams, pool: Map<string, ItemPool>, horizon: number): EvalCase[] {
  const cases: EvalCase[] = [];
  seqs.forEach((seq, u) => {
    const positions = new Map<string, number[]>();
    seq.forEach((ev, j) => {
      for (const k of new Set(ev.objectives)) {
        if (k.startsWith("set:") || k === "none") continue; // composite skill-set objectives are not skills
        let a = positions.get(k);
        if (!a) {
          a = [];
          positions.set(k, a);
        }
        a.push(j);
      }
    });
    const starts = new Map<number, { skill: string; idx: number[] }[]>();
    for (const [skill, a] of positions) {
      for (let i = 0; i < a.length; i += horizon) {
        const idx = a.slice(i, i + horizon);
        const l = starts.get(idx[0] as number) ?? [];
        l.push({ skill, idx });
        starts.set(idx[0] as number, l);
      }
    }
    const state = initialLearnerState(params);
    let seqNo = 0;
    seq.forEach((ev, j) => {
      for (const { skill, idx } of starts.get(j) ?? []) {
        const meta = { accountId: `learner-${u}`, graphId: "eval", registrationId: `reg-${u}`, registrationCreatedAt: 0, seq: ++seqNo };
        let projection: EvalCase["projection"] | undefined;
        for (const m of projectionMessages(state, meta, {}, { objectives: state.objectives[skill] ? [skill] : [] }))
          projection = applyProjectionMessage(projection, m);
        const right = idx.reduce((s, i) => s + (seq[i]?.kind === "graded" && (seq[i] as { correct: boolean | number }).correct ? 1 : 0), 0);
        cases.push({
          skill,
          projection: projection as EvalCase["projection"],
          belief: objectiveBelief(projection, skill, 0, params.filter),
          pool: pool.get(skill) ?? { meanDifficulty: params.globalDifficulty, difficultyVariance: 0.83 },
          right,
          answers: idx.length,
          short: idx.length < horizon,
          globalEvidence: state.global.n,
        });
      }
      if (ev.kind === "graded") applyGraded(state, params, undefined, ev);
    });
  });
  return cases;
}

interface GroupCase {
  skills: string[];
  beliefs: EvalCase["belief"][];
  pools: ItemPool[];
  right: number[];
  answers: number[];
}

/**
 * Groups: at a quarter, half and three quarters of every learner's sequence, the group is the (up to
 * GROUP_MAX) first skills the learner answers afterwards; each skill's share is over its next ≤ horizon
 * answers after the cut; the group share is their unweighted mean (groups of one skill are skipped).
 */
const GROUP_MAX = 5;
function collectGroupCases(seqs: LearnerEvent[][], params: ModelParams, pool: Map<string, ItemPool>, horizon: number): GroupCase[] {
  const out: GroupCase[] = [];
  seqs.forEach((seq, u) => {
    if (seq.length < 8) return;
    const cuts = new Set([Math.floor(seq.length / 4), Math.floor(seq.length / 2), Math.floor((3 * seq.length) / 4)]);
    const state = initialLearnerState(params);
    seq.forEach((ev, j) => {
      if (cuts.has(j)) {
        const outcomes = new Map<string, number[]>();
        for (let i = j; i < seq.length; i++) {
          const e = seq[i] as LearnerEvent;
          for (const k of new Set(e.objectives)) {
            if (k.startsWith("set:") || k === "none") continue;
            let a = outcomes.get(k);
            if (!a) {
              if (outcomes.size >= GROUP_MAX) continue;
              a = [];
              outcomes.set(k, a);
            }
            if (a.length < horizon) a.push(e.kind === "graded" && e.correct ? 1 : 0);
          }
        }
        if (outcomes.size >= 2) {
          const skills = [...outcomes.keys()];
          let projection: ReturnType<typeof applyProjectionMessage> | undefined;
          const meta = { accountId: `learner-${u}`, graphId: "eval", registrationId: `reg-${u}`, registrationCreatedAt: 0, seq: j + 1 };
          for (const m of projectionMessages(state, meta)) projection = applyProjectionMessage(projection, m);
          out.push({
            skills,
            beliefs: skills.map((k) => objectiveBelief(projection, k, 0, params.filter)),
            pools: skills.map((k) => pool.get(k) ?? { meanDifficulty: params.globalDifficulty, difficultyVariance: 0.83 }),
            right: skills.map((k) => (outcomes.get(k) as number[]).reduce((a, b) => a + b, 0)),
            answers: skills.map((k) => (outcomes.get(k) as number[]).length),
          });
        }
      }
      if (ev.kind === "graded") applyGraded(state, params, undefined, ev);
    });
  });
  return out;
}

function asGroupScoreCase(c: GroupCase): GroupScoreCase {
  return {
    terms: c.skills.map((_, i) => ({
      belief: c.beliefs[i] as EvalCase["belief"],
      pool: c.pools[i] as ItemPool,
      right: c.right[i] as number,
      answers: c.answers[i] as number,
    })),
  };
}

function groupTable(label: string, cases: readonly GroupCase[], cal: ScoreCalibration): string {
  const below = LEVELS.map(() => 0);
  let width = 0;
  let bias = 0;
  for (const c of cases) {
    const terms = c.skills.map((_, i) => calibratedTerm(c.beliefs[i] as EvalCase["belief"], c.pools[i] as ItemPool, cal, 1, c.answers[i] as number));
    const d = shareDistribution(terms);
    const qs = LEVELS.map((l) => d.quantile(l / 100));
    const share = c.right.reduce((s, x, i) => s + x / (c.answers[i] as number), 0) / c.skills.length;
    const [lo, hi] = groupCell(
      share,
      groupHalfCell(
        c.skills.map(() => 1),
        c.answers,
      ),
    );
    for (const [i, q] of qs.entries()) below[i] = (below[i] as number) + Math.min(1, Math.max(0, (q - lo) / (hi - lo)));
    width += (qs[qs.length - 1] as number) - (qs[0] as number);
    bias += d.mean - share;
  }
  const n = Math.max(1, cases.length);
  const pct = (v: number) => (100 * v).toFixed(1).padStart(5);
  return `| ${label.padEnd(38)} | ${String(cases.length).padStart(6)} | ${below.map((b) => pct(b / n)).join(" | ")} | ${(width / n).toFixed(3)} | ${((100 * bias) / n).toFixed(1).padStart(5)} |`;
}

function table(label: string, cases: readonly EvalCase[], params: ModelParams, cal: ScoreCalibration): string {
  const row = reliability(cases, LEVELS, (c) => {
    const r = predictedScores(
      c.projection,
      [{ groupId: "g", objectives: [{ objectiveId: c.skill }] }],
      { confidenceLevels: LEVELS, answersPerObjective: c.answers },
      {
        nowMs: 0,
        graphId: "eval",
        filter: params.filter,
        pool: () => c.pool,
        globalDifficulty: params.globalDifficulty,
        calibration: cal,
      },
    );
    const values = (r.group_scores[0]?.scores ?? []).map((s) => s.predicted_score);
    const mean = shareDistribution([calibratedTerm(c.belief, c.pool, cal, 1, c.answers)]).mean;
    return { values, mean };
  });
  const pct = (v: number) => (100 * v).toFixed(1).padStart(5);
  return `| ${label.padEnd(38)} | ${String(row.cases).padStart(6)} | ${row.below.map(pct).join(" | ")} | ${row.width.toFixed(3)} | ${(100 * row.bias).toFixed(1).padStart(5)} |`;
}

function header(): string {
  return `| ${"TEST windows".padEnd(38)} | ${"cases".padStart(6)} | ${LEVELS.map((l) => `<P${l}`.padStart(5)).join(" | ")} | width | bias |\n|${"-".repeat(40)}|-------:|------:|------:|------:|------:|-----:|`;
}

function main(): void {
  const trainPath = arg("train");
  const testPath = arg("test");
  const qmatPath = arg("qmat");
  if (!trainPath || !testPath || !qmatPath) {
    console.error(
      "usage: eval-score --train TRAIN --test TEST --qmat QMAT [--horizon 4] [--fit-params A.json] [--params FULL.json] [--save-params DIR] [--verbose]",
    );
    process.exit(2);
  }
  const horizon = Math.max(1, Number(arg("horizon") ?? SCORE_HORIZON));
  const verbose = process.argv.includes("--verbose");
  const log = verbose ? (m: string) => console.error(m) : undefined;
  const t0 = Date.now();
  const qmat = readQmat(qmatPath);
  const trainRows = readRows(trainPath);
  const testRows = readRows(testPath);
  const scale = timeScale(trainRows) || timeScale(testRows);
  const sets = skillSetMap(trainRows, qmat);
  const seqs = (rows: KtRow[]) => toSequences(rows, qmat, scale, sets).seqs;
  const load = (p: string | undefined) => (p ? (JSON.parse(readFileSync(p, "utf8")) as ModelParams) : undefined);
  const saveDir = arg("save-params");

  // 1. Fit the score calibration on TRAIN only.
  const fitRows = trainRows.filter((r) => !heldOut(r.user));
  const holdRows = trainRows.filter((r) => heldOut(r.user));
  const paramsA = load(arg("fit-params")) ?? calibrate(seqs(fitRows), { log });
  if (saveDir) writeFileSync(`${saveDir}/params-fit.json`, JSON.stringify(paramsA));
  const holdCases = collectCases(seqs(holdRows), paramsA, pools(paramsA, qmat), horizon);
  const holdSeqs = seqs(holdRows);
  const holdGroups = collectGroupCases(holdSeqs, paramsA, pools(paramsA, qmat), horizon);
  const fitted = fitSharedFromOwn(holdGroups.map(asGroupScoreCase), fitCalibration(holdCases, log), log);
  const t1 = Date.now();

  // 2. The model on all of TRAIN; score the TEST windows.
  const params = load(arg("params")) ?? calibrate(seqs(trainRows), { log });
  if (saveDir) writeFileSync(`${saveDir}/params-full.json`, JSON.stringify(params));
  const testPools = pools(params, qmat);
  const testSeqs = seqs(testRows);
  const testCases = collectCases(testSeqs, params, testPools, horizon);
  const groupCases = collectGroupCases(testSeqs, params, testPools, horizon);
  const t2 = Date.now();

  const shipped = SCORE_CALIBRATION;
  const same = JSON.stringify(shipped) === JSON.stringify(fitted);
  console.log(`train: ${trainRows.length} rows (${fitRows.length} fit / ${holdRows.length} held out for the score calibration); test: ${testRows.length} rows`);
  console.log(
    `horizon: next ${horizon} answers on the skill; windows: ${holdCases.length} held-out TRAIN, ${testCases.length} TEST; groups: ${holdGroups.length} held-out TRAIN, ${groupCases.length} TEST`,
  );
  console.log(`calibration fitted on TRAIN: ${JSON.stringify(fitted)}`);
  console.log(
    `calibration shipped (src/analytics/score-params.ts): ${JSON.stringify(shipped)}${same ? " (identical)" : " (DIFFERENT: re-ship to use the new fit)"}`,
  );
  console.log("");
  console.log(
    "Observed share of TEST outcomes below the predicted percentile (target: 10 / 50 / 90, ±5), mean width P90−P10, bias = mean predicted − observed share (points):",
  );
  console.log("");
  console.log(header());
  const all = testCases;
  console.log(table("all windows, shipped calibration", all, params, shipped));
  if (!same) console.log(table("all windows, calibration fitted now", all, params, fitted));
  console.log(table("all windows, no calibration", all, params, IDENTITY_CALIBRATION));
  console.log(
    table(
      "never practised (prior fallback)",
      all.filter((c) => c.belief.evidence === 0),
      params,
      shipped,
    ),
  );
  console.log(
    table(
      "unpractised, < 10 answers in all",
      all.filter((c) => c.belief.evidence === 0 && c.globalEvidence < 10),
      params,
      shipped,
    ),
  );
  console.log(
    table(
      "unpractised, 10+ answers in all",
      all.filter((c) => c.belief.evidence === 0 && c.globalEvidence >= 10),
      params,
      shipped,
    ),
  );
  console.log(
    table(
      "practised, 1-9 answers before",
      all.filter((c) => c.belief.evidence > 0 && c.belief.evidence < 10),
      params,
      shipped,
    ),
  );
  console.log(
    table(
      "practised, 10+ answers before",
      all.filter((c) => c.belief.evidence >= 10),
      params,
      shipped,
    ),
  );
  console.log(
    table(
      `full windows (${horizon} answers)`,
      all.filter((c) => !c.short),
      params,
      shipped,
    ),
  );
  console.log(
    table(
      "short windows (last answers on a skill)",
      all.filter((c) => c.short),
      params,
      shipped,
    ),
  );
  console.log(groupTable("groups of 2-5 skills, shipped calibration", groupCases, shipped));
  if (!same) console.log(groupTable("groups of 2-5 skills, fitted now", groupCases, fitted));
  console.log(groupTable("groups of 2-5 skills, no calibration", groupCases, IDENTITY_CALIBRATION));
  console.log(
    groupTable(
      "groups of 2-3 skills",
      groupCases.filter((c) => c.skills.length <= 3),
      shipped,
    ),
  );
  console.log(
    groupTable(
      "groups of 4-5 skills",
      groupCases.filter((c) => c.skills.length >= 4),
      shipped,
    ),
  );
  console.log("");
  console.log(`time: fit ${((t1 - t0) / 1000).toFixed(1)}s, test ${((t2 - t1) / 1000).toFixed(1)}s, tables ${((Date.now() - t2) / 1000).toFixed(1)}s`);
}

main();
