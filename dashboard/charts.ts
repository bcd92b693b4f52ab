import * as Plot from "@observablehq/plot";
import type { ClassData } from "./data";

/**
 * The charts (Observable Plot, bundled: no CDN). Plot puts a <style> element in each chart; the
 * page's Content-Security-Policy allows no inline style, so it is removed and dashboard.css carries
 * the same rules for the class `pw-plot`. Every chart has an aria-label and description, and the page
 * shows its numbers in a table next to it.
 */
const CLASS = "pw-plot";

/** The q-quantile of a class's values (nearest rank, round(q·(n − 1)) of the sorted values); n ≥ 1. The chart and its caption use the same one. */
export function quantileOf(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))] as number;
}

export const pct = (x: number): string => (Number.isFinite(x) ? `${Math.round(x * 100)}%` : "–");

function finish(node: SVGSVGElement | HTMLElement): SVGSVGElement | HTMLElement {
  for (const style of node.querySelectorAll("style")) style.remove();
  return node;
}

export function proficiencyHeatmap(data: ClassData, width: number): SVGSVGElement | HTMLElement {
  const cells = data.proficiency.flatMap((row) =>
    row.values.map((v, i) => ({
      learner: row.learner.label,
      objective: data.objectives[i]!.name,
      ...v,
      width: v.upper - v.lower,
    })),
  );
  const learners = data.proficiency.map((r) => r.learner.label);
  const compact = width < 560;
  const chart = finish(
    Plot.plot({
      className: CLASS,
      width: Math.max(width, 120 + data.objectives.length * (compact ? 44 : 64)),
      height: 40 + 120 + learners.length * 34,
      marginLeft: 90,
      marginBottom: 120,
      ariaLabel: "Proficiency heatmap: learners by learning objectives",
      ariaDescription:
        "Each cell is a learner's estimated proficiency on an objective (expected share of right answers); paler cells are less certain (wider 95% interval). The same numbers are in the table below.",
      x: { domain: data.objectives.map((o) => o.name), label: null, tickRotate: -40, tickFormat: (d: string) => (d.length > 24 ? `${d.slice(0, 23)}…` : d) },
      y: { domain: learners, label: null },
      color: { type: "linear", domain: [0, 1], range: ["#f7fbff", "#08306b"], label: "Proficiency", tickFormat: "%" },
      marks: [
        Plot.cell(cells, {
          x: "objective",
          y: "learner",
          fill: "proficiency",
          fillOpacity: (d: { width: number }) => Math.max(0.25, 1 - 0.8 * Math.min(1, d.width / 0.9)),
          inset: 1,
          title: (d: (typeof cells)[number]) =>
            `${d.learner} · ${d.objective}\n${pct(d.proficiency)} (95% interval ${pct(d.lower)}–${pct(d.upper)}), ${d.evidence} answers`,
        }),
        Plot.text(cells, {
          x: "objective",
          y: "learner",
          text: (d: (typeof cells)[number]) => (compact ? pct(d.proficiency) : `${pct(d.proficiency)} ±${Math.round((d.width / 2) * 100)}`),
          fill: "#111",
          stroke: "white",
          strokeWidth: 3,
          paintOrder: "stroke",
          fontSize: compact ? 9 : 10,
        }),
      ],
    }),
  ) as ReturnType<typeof Plot.plot>;
  const legend = chart.legend("color", { marginLeft: 16, marginRight: 16, width: 260, className: CLASS });
  const box = document.createElement("div");
  box.append(...(legend ? [finish(legend)] : []), chart);
  return box;
}

export function scoreDistribution(data: ClassData, width: number): SVGSVGElement | HTMLElement {
  const rows = [...data.scores].sort((a, b) => a.p50 - b.p50).map((s) => ({ ...s, label: s.learner.label }));
  const median = rows.length
    ? quantileOf(
        rows.map((r) => r.p50),
        0.5,
      )
    : undefined;
  return finish(
    Plot.plot({
      className: CLASS,
      width,
      height: 60 + rows.length * 30,
      marginLeft: 90,
      ariaLabel: "Predicted score distribution of the class",
      ariaDescription:
        "For each learner, the bar spans the 10th to the 90th percentile of the predicted score on the goal's targets and the dot marks the median; the dashed line is the class median.",
      x: { domain: [0, 1], label: "Predicted score on the goal's targets →", tickFormat: "%", grid: true },
      y: { domain: rows.map((r) => r.label), label: null },
      marks: [
        Plot.ruleY(rows, { y: "label", x1: "p10", x2: "p90", stroke: "#7fa7d9", strokeWidth: 8, strokeLinecap: "round" }),
        Plot.dot(rows, {
          y: "label",
          x: "p50",
          fill: "#0b3d91",
          r: 5,
          title: (d: (typeof rows)[number]) => `${d.label}: ${pct(d.p50)} (${pct(d.p10)}–${pct(d.p90)})`,
        }),
        ...(median === undefined ? [] : [Plot.ruleX([median], { stroke: "#b3261e", strokeDasharray: "4,3" })]),
      ],
    }),
  );
}

export function activityChart(data: ClassData, width: number): SVGSVGElement | HTMLElement {
  const bars = data.activity.rows.flatMap((row) =>
    row.values.map((v, i) => ({ day: data.activity.days[i]!, learner: row.learner.label, minutes: v.active_time_ms / 60_000 })),
  );
  return finish(
    Plot.plot({
      className: CLASS,
      width,
      height: 260,
      marginLeft: 50,
      ariaLabel: "Active time per day, last 7 days",
      ariaDescription: "Stacked bars: minutes of active time per calendar day, one colour per learner. The same numbers are in the table below.",
      x: { domain: data.activity.days, label: null, tickFormat: (d: string) => shortDay(d) },
      y: { label: "Active minutes", grid: true },
      color: { legend: true, scheme: "tableau10", domain: data.activity.rows.map((r) => r.learner.label) },
      marks: [
        Plot.barY(bars, {
          x: "day",
          y: "minutes",
          fill: "learner",
          title: (d: (typeof bars)[number]) => `${d.learner}, ${d.day}: ${Math.round(d.minutes)} min`,
        }),
        Plot.ruleY([0]),
      ],
    }),
  );
}

export function shortDay(isoDate: string): string {
  const d = new Date(`${isoDate}T12:00:00Z`);
  return d.toLocaleDateString(undefined, { weekday: "short", day: "numeric", timeZone: "UTC" });
}
