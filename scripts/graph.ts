/**
 * Graph CLI.
 *   npm run --silent graph -- import --atoms atoms.csv --prerequisites prerequisites.csv --label gref-x --name "X"
 *       [--out doc.json] [--validate-only] [--upload --url http://localhost:8787 --token TOKEN [--update]]
 *
 * Converts a Content Inventory CSV (scripts/lib/inventory.ts describes the columns) into a graph
 * document, validates it with the service's own validator and prints a report on stderr that
 * points at CSV lines. Then, unless --validate-only: writes the document to --out (or stdout when
 * neither --out nor --upload is given) and, with --upload, sends it (POST /v0/graphs, or
 * PUT /v0/graphs/{label} with --update) and prints the service's answer on stdout.
 * The token may also come from PATHWISE_TOKEN. Exit codes: 0 done, 1 invalid or refused, 2 usage.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { validateGraph } from "../src/graphs/validate-graph";
import { formatProblem, inventoryToGraph, locateIssue } from "./lib/inventory";

const USAGE = `usage: graph import --atoms atoms.csv [--prerequisites prerequisites.csv] --label gref-x --name "Name"
                    [--out doc.json] [--validate-only] [--upload --url URL --token TOKEN [--update]]`;

function parseArgs(argv: string[]): { command?: string; flags: Map<string, string | true> } {
  const flags = new Map<string, string | true>();
  let command: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith("--")) {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith("--")) {
        flags.set(a.slice(2), next);
        i++;
      } else flags.set(a.slice(2), true);
    } else if (!command) command = a;
  }
  return { command, flags };
}

/** A progress bar on stderr (redrawn in place on a terminal, one line per phase otherwise). */
function progressBar() {
  const tty = process.stderr.isTTY;
  let lastPhase = "";
  return {
    update(phase: string, done: number, total: number) {
      if (!tty) {
        if (done === total && phase !== lastPhase) process.stderr.write(`${phase}: ${total} row(s)\n`);
        if (done === total) lastPhase = phase;
        return;
      }
      const width = 30;
      const ratio = total ? done / total : 1;
      const filled = Math.round(ratio * width);
      process.stderr.write(
        `\r${phase.padEnd(14)} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${String(Math.round(ratio * 100)).padStart(3)}% ${done}/${total}`,
      );
      if (done === total) process.stderr.write("\n");
    },
    step(message: string) {
      process.stderr.write(`${message}\n`);
    },
  };
}

async function importCommand(flags: Map<string, string | true>): Promise<number> {
  const str = (k: string) => (typeof flags.get(k) === "string" ? (flags.get(k) as string) : undefined);
  const atomsPath = str("atoms");
  const prerequisitesPath = str("prerequisites");
  const label = str("label");
  const name = str("name");
  if (!atomsPath || !label || !name) {
    console.error(USAGE);
    return 2;
  }
  const upload = flags.has("upload");
  const url = str("url") ?? "http://localhost:8787";
  const token = str("token") ?? process.env.PATHWISE_TOKEN;
  if (upload && !token) {
    console.error("--upload needs --token TOKEN (or PATHWISE_TOKEN)");
    return 2;
  }
  const bar = progressBar();
  const result = inventoryToGraph({
    atomsCsv: readFileSync(atomsPath, "utf8"),
    prerequisitesCsv: prerequisitesPath ? readFileSync(prerequisitesPath, "utf8") : undefined,
    atomsFile: basename(atomsPath),
    prerequisitesFile: prerequisitesPath ? basename(prerequisitesPath) : "prerequisites.csv",
    label,
    name,
    onProgress: (phase, done, total) => bar.update(phase, done, total),
  });
  bar.step("validating");
  const report = validateGraph(result.doc, { pathPrefix: "doc" });
  const errors = [...result.errors, ...report.errors.map((i) => locateIssue(i, result.sources))];
  const warnings = [...result.warnings, ...report.warnings.map((i) => locateIssue(i, result.sources))];
  const c = report.counts;
  process.stderr.write(
    `\n${label}: ${c.learning_objectives} objectives (${c.prerequisites} prerequisites), ${c.modules} atoms ` +
      `(${c.assessment_modules} assessing, ${c.instructional_modules} instructional), ${c.bundles} containers, ${c.taxa} taxa\n`,
  );
  for (const w of warnings) process.stderr.write(`  warning  ${formatProblem(w)}\n`);
  for (const e of errors) process.stderr.write(`  ERROR    ${formatProblem(e)}\n`);
  process.stderr.write(
    errors.length
      ? `\n${errors.length} error(s), ${warnings.length} warning(s): fix the rows above and run again.\n`
      : `\nvalid (${warnings.length} warning(s)).\n`,
  );
  if (errors.length) return 1;
  if (flags.has("validate-only")) return 0;

  const json = `${JSON.stringify(result.doc, null, 2)}\n`;
  const out = str("out");
  if (out) {
    writeFileSync(out, json);
    bar.step(`wrote ${out} (${(json.length / 1024).toFixed(0)} KiB)`);
  } else if (!upload) process.stdout.write(json);

  if (upload) {
    const update = flags.has("update");
    const target = update ? `${url.replace(/\/$/, "")}/v0/graphs/${encodeURIComponent(label)}` : `${url.replace(/\/$/, "")}/v0/graphs`;
    bar.step(`uploading to ${update ? "PUT" : "POST"} ${target}`);
    const res = await fetch(target, {
      method: update ? "PUT" : "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify(result.doc),
    });
    const text = await res.text();
    process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    if (!res.ok) {
      process.stderr.write(`the service refused the graph: HTTP ${res.status}\n`);
      return 1;
    }
    bar.step(`uploaded: HTTP ${res.status}`);
  }
  return 0;
}

async function main(): Promise<number> {
  const { command, flags } = parseArgs(process.argv.slice(2));
  if (command === "import") return importCommand(flags);
  console.error(USAGE);
  return 2;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(String((err as Error).message ?? err));
    process.exit(1);
  },
);
