// Pure arithmetic of the throughput benchmark: summaries of rounds, ratios, the tables and the
// budget lines (unit-tested in test/unit/bench/throughput-stats.test.ts).

/** The q-quantile (0..1) of ascending values, nearest rank; NaN when empty. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

export interface RoundFigures {
  requests: number;
  durationS: number;
  /** latencies (ms) of the kind of request reported */
  latencies: number[];
  cpuMs: number;
}

export interface Summary {
  rps: number;
  p50: number;
  p99: number;
  /** server CPU ms per request */
  cpu: number;
  requests: number;
}

/** Rounds of one scenario pooled: requests over time, latency quantiles over every sample, CPU over requests. */
export function summarize(rounds: readonly RoundFigures[]): Summary {
  const requests = rounds.reduce((n, r) => n + r.requests, 0);
  const seconds = rounds.reduce((n, r) => n + r.durationS, 0);
  const cpu = rounds.reduce((n, r) => n + r.cpuMs, 0);
  const latencies = rounds.flatMap((r) => r.latencies).sort((a, b) => a - b);
  return {
    rps: seconds > 0 ? requests / seconds : 0,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    cpu: requests > 0 ? cpu / requests : Number.NaN,
    requests,
  };
}

/** Throughput ratio a / b (0 when b is 0). */
export const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);

export type BudgetLine = { name: string; met: boolean; detail: string };

/** `at least`: the scenario's throughput is at least `min` of its floor's. */
export function atLeast(name: string, value: number, min: number, what: string): BudgetLine {
  return { name, met: value >= min, detail: `${what} ${value.toFixed(3)} (needs >= ${min.toFixed(3)})` };
}

/** `at most`: a cost ratio stays within `max`; a ratio that could not be measured (not finite) is missed. */
export function atMost(name: string, value: number, max: number, what: string): BudgetLine {
  if (!Number.isFinite(value)) return { name, met: false, detail: `${what} not measured (needs <= ${max.toFixed(2)})` };
  return { name, met: value <= max, detail: `${what} ${value.toFixed(2)} (needs <= ${max.toFixed(2)})` };
}

export function budgetLine(lines: readonly BudgetLine[]): string {
  const met = lines.filter((l) => l.met).length;
  return `budget: ${met} met, ${lines.length - met} missed`;
}

const thousands = (n: number, digits = 0) => n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** A Markdown table, columns padded so it reads in a terminal too. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(" | ")} |`;
  return [line(header), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...rows.map(line)].join("\n");
}

export const fmt = {
  rps: (n: number) => thousands(n, n < 100 ? 1 : 0),
  ms: (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 1) : "–"),
  ratio: (n: number) => (Number.isFinite(n) ? n.toFixed(3) : "–"),
  int: (n: number) => thousands(n),
};
