/**
 * Reading of Gervet-format knowledge-tracing files (node only; not used by the Worker).
 * TRAIN/TEST: header `user_id item_id timestamp correct skill_id` (tab- or comma-separated).
 * QMAT: header line, then `item_id,skill_ids` with space-separated skill ids.
 */
import { readFileSync } from "node:fs";
import type { LearnerEvent } from "../src/model/index";
import { csrRows } from "./lib/npz";

export interface KtRow {
  user: string;
  item: string;
  time: number; // raw timestamp column value
  correct: number;
  skillSet: string;
}

function splitter(header: string): (line: string) => string[] {
  if (header.includes("\t")) return (l) => l.split("\t");
  if (header.includes(",")) return (l) => l.split(",");
  if (header.includes(";")) return (l) => l.split(";");
  return (l) => l.trim().split(/\s+/);
}

export function readRows(path: string): KtRow[] {
  const text = readFileSync(path, "utf8");
  const lines = text.split(/\r?\n/);
  const header = lines[0] ?? "";
  const split = splitter(header);
  const cols = split(header).map((c) => c.trim().toLowerCase());
  const col = (name: string, alt: string[] = []): number => {
    for (const n of [name, ...alt]) {
      const i = cols.indexOf(n);
      if (i >= 0) return i;
    }
    return -1;
  };
  const iu = col("user_id", ["user", "student_id"]);
  const ii = col("item_id", ["item", "problem_id"]);
  const it = col("timestamp", ["time", "ts"]);
  const ic = col("correct", ["label"]);
  const is = col("skill_id", ["skill"]);
  if (iu < 0 || ii < 0 || ic < 0) throw new Error(`${path}: header must contain user_id, item_id, correct (got: ${header})`);
  const rows: KtRow[] = [];
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n];
    if (!line?.trim()) continue;
    const f = split(line);
    const c = Number(f[ic]);
    rows.push({
      user: (f[iu] ?? "").trim(),
      item: (f[ii] ?? "").trim(),
      time: it >= 0 ? Number(f[it]) || 0 : 0,
      correct: c > 0.5 ? 1 : 0,
      skillSet: is >= 0 ? (f[is] ?? "").trim() : "",
    });
  }
  return rows;
}

/** item id -> skill ids, from q_mat.csv (`item_id,skill_ids`) or the published q_mat.npz. */
export function readQmat(path: string): Map<string, string[]> {
  // q_mat.npz as published (a scipy.sparse CSR matrix, items x skills): row = item id, columns = skill ids
  if (path.endsWith(".npz")) return new Map(csrRows(readFileSync(path)).map((skills, item) => [String(item), skills.map(String)]));
  const text = readFileSync(path, "utf8");
  const lines = text.split(/\r?\n/);
  const out = new Map<string, string[]>();
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n];
    if (!line?.trim()) continue;
    const m = /^\s*([^,\t;]+)[,\t;](.*)$/.exec(line);
    if (!m) continue;
    const item = (m[1] ?? "").trim();
    const skills = (m[2] ?? "")
      .trim()
      .split(/[\s,;|]+/)
      .filter((s) => s.length > 0);
    out.set(item, skills);
  }
  return out;
}

/** Multiplier turning raw timestamps into ms (0 when all timestamps are 0). Seconds unless values look like ms. */
export function timeScale(rows: readonly KtRow[]): number {
  let max = 0;
  for (const r of rows) if (r.time > max) max = r.time;
  if (max <= 0) return 0;
  return max > 1e11 ? 1 : 1000;
}

/**
 * Skill-set id -> Q-matrix skills, learned from rows whose item is in the Q-matrix (in Gervet files
 * skill_id is the index of the item's skill set), so items missing from the Q-matrix still map to skills.
 */
export function skillSetMap(rows: readonly KtRow[], qmat: Map<string, string[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows) {
    if (r.skillSet === "" || out.has(r.skillSet)) continue;
    const q = qmat.get(r.item);
    if (q && q.length > 0) out.set(r.skillSet, q);
  }
  return out;
}

export function objectivesOf(qmat: Map<string, string[]>, row: KtRow, sets?: Map<string, string[]>): string[] {
  const q = qmat.get(row.item) ?? sets?.get(row.skillSet);
  // A multi-skill item also assesses its skill combination (the file's skill-set id) as a composite objective.
  if (q && q.length > 0) return q.length > 1 && row.skillSet !== "" ? [...q, `set:${row.skillSet}`] : q;
  if (row.skillSet !== "") return [`set:${row.skillSet}`];
  return ["none"];
}

/** Groups rows by user, keeping file order within each user. Returns sequences and the row index of each event. */
export function toSequences(
  rows: readonly KtRow[],
  qmat: Map<string, string[]>,
  scale: number,
  sets?: Map<string, string[]>,
): { seqs: LearnerEvent[][]; rowIndex: number[][] } {
  const byUser = new Map<string, number>();
  const seqs: LearnerEvent[][] = [];
  const rowIndex: number[][] = [];
  const objCache = new Map<string, string[]>();
  rows.forEach((r, i) => {
    let u = byUser.get(r.user);
    if (u === undefined) {
      u = seqs.length;
      byUser.set(r.user, u);
      seqs.push([]);
      rowIndex.push([]);
    }
    const ck = `${r.item}\u0000${r.skillSet}`;
    let objectives = objCache.get(ck);
    if (!objectives) {
      objectives = objectivesOf(qmat, r, sets);
      objCache.set(ck, objectives);
    }
    seqs[u]?.push({ kind: "graded", itemKey: r.item, objectives, correct: r.correct, timeMs: r.time > 0 ? r.time * scale : 0 });
    rowIndex[u]?.push(i);
  });
  return { seqs, rowIndex };
}
