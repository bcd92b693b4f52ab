/**
 * Converts the two secondary ASSISTments 2009 splits (assist2009_pid, assist2009_updated: public data
 * sets, not in the repository; docs/datasets.md says where to get them) into the Gervet format read
 * by scripts/eval-kt.ts (tab-separated `user_id item_id timestamp correct skill_id` + q_mat.csv
 * `item_id,skill_ids`), so the learner model can be evaluated on splits it was not developed on.
 * Writes to --out-dir (a temp directory; never into the repo):
 *
 *   OUT/pid/foldK/{train,test}.csv, q_mat.csv   from assist2009_pid (AKT 5-fold split)
 *     - train = assist2009_pid_trainK + _validK concatenated (all students not in testK; the model
 *       has no early stopping to feed a validation set to); --pid-train train uses trainK only.
 *     - A response to a k-skill problem is written k times (consecutive entries, same problem and
 *       correctness, different skill). These are merged back into ONE response whose skill set is the
 *       union (an entry whose skill is already in the current group starts a new response: 19 such
 *       genuine repeats). --no-merge keeps one row per entry (like the AKT protocol, label leakage).
 *     - item_id = problem index; q_mat = per problem, the union of skills seen in that fold's files
 *       (skill tags only, like Gervet's q_mat built from all rows; no correctness is used);
 *       skill_id = index of the item's skill set (distinct sorted sets, as in Gervet's files).
 *   OUT/updated/{train,test}.csv, q_mat.csv   from assist2009_updated (DKVMN split, train/test)
 *     - No student or problem ids: user_id = sequence number (test offset by 100000), item_id =
 *       skill_id = the DKVMN skill id, q_mat maps each skill to itself. Entries are NOT merged (no
 *       problem id to tell a multi-skill expansion from a new response), as in the DKVMN protocol.
 * timestamp is 0 everywhere (the 2009 data has none; row order is chronological).
 *
 *   npx tsx scripts/convert-kt-data.ts --out-dir /tmp/kt [--data-dir DIR]
 *     [--folds 1,2,3,4,5] [--pid-train train+valid|train] [--no-merge]
 * --data-dir: the directory holding assist2009_pid/ and assist2009_updated/ as docs/datasets.md lays
 * them out (default /work/shared/data, where the project's own machine keeps them).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const argv = process.argv;
const arg = (name: string, dflt: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? (argv[i + 1] as string) : dflt;
};
const outDir = arg("out-dir", "");
if (!outDir) {
  console.error("usage: convert-kt-data --out-dir DIR [--data-dir DIR] [--folds 1,..,5] [--pid-train train+valid|train] [--no-merge]");
  console.error("  --data-dir: holds assist2009_pid/ and assist2009_updated/ (docs/datasets.md: where to get them); default /work/shared/data");
  process.exit(2);
}
const dataDir = arg("data-dir", "/work/shared/data");
const folds = arg("folds", "1,2,3,4,5")
  .split(",")
  .map((s) => Number(s.trim()))
  .filter((k) => k >= 1 && k <= 5);
const pidTrain = arg("pid-train", "train+valid");
const merge = !argv.includes("--no-merge");

interface Resp {
  user: string;
  item: string;
  correct: number;
  skills: number[];
}
const nums = (line: string | undefined): number[] =>
  (line ?? "")
    .split(",")
    .filter((s) => s.trim() !== "")
    .map(Number);
const lines = (path: string): string[] =>
  readFileSync(path, "utf8")
    .split(/\r?\n/)
    .filter((l) => l.trim() !== "");

/** assist2009_pid file: 4 lines per student (student,user_id / problems / skills / correct). */
function readPid(path: string): Resp[] {
  const L = lines(path);
  const out: Resp[] = [];
  for (let i = 0; i + 3 < L.length; i += 4) {
    const user = (L[i] ?? "").split(",")[0]!.trim();
    const [p, s, c] = [nums(L[i + 1]), nums(L[i + 2]), nums(L[i + 3])];
    if (p.length !== s.length || p.length !== c.length) throw new Error(`${path}: record at line ${i + 1} has unequal lengths`);
    let cur: Resp | undefined;
    for (let t = 0; t < p.length; t++) {
      const item = String(p[t]);
      const skill = s[t] as number;
      const correct = c[t] as number;
      if (merge && cur && cur.item === item && cur.correct === correct && !cur.skills.includes(skill)) cur.skills.push(skill);
      else {
        cur = { user, item, correct, skills: [skill] };
        out.push(cur);
      }
    }
  }
  return out;
}

/** assist2009_updated file: 3 lines per sequence (n / skills / correct); item = skill. */
function readUpdated(path: string, userOffset: number): Resp[] {
  const L = lines(path);
  const out: Resp[] = [];
  for (let i = 0; i + 2 < L.length; i += 3) {
    const [s, c] = [nums(L[i + 1]), nums(L[i + 2])];
    if (s.length !== Number(L[i]) || c.length !== s.length) throw new Error(`${path}: record at line ${i + 1} has wrong length`);
    const user = String(userOffset + i / 3);
    for (const [t, skill] of s.entries()) out.push({ user, item: String(skill), correct: c[t] as number, skills: [skill] });
  }
  return out;
}

/** Writes train.csv, test.csv and q_mat.csv (item -> union of its skills over both files). */
function write(dir: string, train: Resp[], test: Resp[]): void {
  mkdirSync(dir, { recursive: true });
  const q = new Map<string, Set<number>>();
  for (const r of [...train, ...test]) {
    let set = q.get(r.item);
    if (!set) {
      set = new Set();
      q.set(r.item, set);
    }
    for (const s of r.skills) set.add(s);
  }
  const key = (item: string): string => [...(q.get(item) ?? [])].sort((a, b) => a - b).join(" ");
  const setIds = new Map([...new Set([...q.keys()].map(key))].sort().map((k, i) => [k, i] as const));
  const rows = (rs: Resp[]): string =>
    `${["user_id\titem_id\ttimestamp\tcorrect\tskill_id", ...rs.map((r) => `${r.user}\t${r.item}\t0\t${r.correct}\t${setIds.get(key(r.item))}`)].join("\n")}\n`;
  writeFileSync(join(dir, "train.csv"), rows(train));
  writeFileSync(join(dir, "test.csv"), rows(test));
  const items = [...q.keys()].sort((a, b) => Number(a) - Number(b));
  writeFileSync(join(dir, "q_mat.csv"), `${["item_id,skill_ids", ...items.map((i) => `${i},${key(i)}`)].join("\n")}\n`);
  const users = (rs: Resp[]): number => new Set(rs.map((r) => r.user)).size;
  console.log(
    `${dir}: train ${train.length} rows / ${users(train)} users, test ${test.length} rows / ${users(test)} users, ${items.length} items, ${setIds.size} skill sets`,
  );
}

const pid = join(dataDir, "assist2009_pid");
for (const k of folds) {
  const train = readPid(join(pid, `assist2009_pid_train${k}.csv`));
  if (pidTrain === "train+valid") train.push(...readPid(join(pid, `assist2009_pid_valid${k}.csv`)));
  else if (pidTrain !== "train") throw new Error(`--pid-train must be train+valid or train (got ${pidTrain})`);
  write(join(outDir, "pid", `fold${k}`), train, readPid(join(pid, `assist2009_pid_test${k}.csv`)));
}
const upd = join(dataDir, "assist2009_updated");
write(join(outDir, "updated"), readUpdated(join(upd, "assist2009_updated_train.csv"), 0), readUpdated(join(upd, "assist2009_updated_test.csv"), 100000));
