import { createPathwiseClient, PathwiseError, PathwiseNetworkError, type StatusRow } from "../client";
import { activityChart, pct, proficiencyHeatmap, quantileOf, scoreDistribution, shortDay } from "./charts";
import { type ClassData, loadClass, NoGoals } from "./data";
import { h, table } from "./dom";
import { forget, readParams, showGoalInAddress } from "./session";

/**
 * The instructor dashboard: /dashboard?instance=<learning instance id>#token=<access token>.
 * Every number comes from the public API, called with the token given (an instructor's of the
 * instance, or the partner admin's); docs/dashboard.md.
 */

const main = document.getElementById("main")!;
const params = readParams();
let current: ClassData | undefined;

const STATUS_LABELS: Record<string, string> = {
  complete: "Complete",
  complete_max_work: "Complete (max work)",
  in_progress: "In progress",
  struggling: "Struggling",
  no_work: "Not started",
};
const WATCH_LABELS: Record<string, string> = {
  stuck: "Stuck",
  struggling: "Struggling",
  inactive: "Inactive",
  not_started: "Not started",
  behind_schedule: "Behind schedule",
};

function errorPage(title: string, detail: string, errorId?: string): void {
  document.getElementById("context")!.hidden = true;
  main.replaceChildren(
    h(
      "section",
      { class: "error", role: "alert", "data-testid": "error" },
      h("h1", {}, title),
      h("p", {}, detail),
      errorId ? h("p", { class: "muted" }, "Reference for support: ", h("code", {}, errorId)) : null,
    ),
  );
  document.title = `Pathwise · ${title}`;
}

function explain(error: unknown): void {
  const [title, detail, errorId] = describe(error);
  errorPage(title, detail, errorId);
}

function describe(error: unknown): [string, string, string?] {
  if (error instanceof NoGoals) return ["No goal yet", `${error.message} Create a scoped goal for it, then open this page again.`];
  if (error instanceof PathwiseError) {
    if (error.status === 401) {
      forget();
      return ["Sign-in needed", "This link has expired or its token is not valid. Open the dashboard again from your application.", error.error_id];
    }
    if (error.status === 403)
      return ["Not allowed", "This token may not see this class's analytics: only the class's instructors and the partner admin may.", error.error_id];
    if (error.status === 404) return ["Class not found", "No such class (or goal) for this token.", error.error_id];
    if (error.status === 429) return ["Too many requests", "Pathwise asked to slow down. Wait a minute, then refresh.", error.error_id];
    return ["Something went wrong", `Pathwise answered ${error.status}: ${error.apiMessage}`, error.error_id];
  }
  if (error instanceof PathwiseNetworkError) return ["Pathwise is unreachable", "The service did not answer. Check the connection, then refresh."];
  return ["Something went wrong", error instanceof Error ? error.message : String(error)];
}

async function start(): Promise<void> {
  if (!params.token) {
    errorPage("Sign-in needed", "Open this dashboard from your application: its link carries your access (…/dashboard?instance=…#token=…).");
    return;
  }
  if (!params.instanceId) {
    errorPage("Which class?", "The link names no class: add ?instance=<learning instance id> to it.");
    return;
  }
  const token = params.token;
  const pw = createPathwiseClient({ baseUrl: location.origin, token, retry: { retries: 2 } });
  const load = async (goalId: string | undefined) => {
    main.setAttribute("aria-busy", "true");
    try {
      current = await loadClass(pw, params.instanceId!, goalId);
      showGoalInAddress(current.goal.id);
      render(current);
    } catch (error) {
      explain(error);
    } finally {
      main.removeAttribute("aria-busy");
    }
  };
  const select = document.getElementById("goal-select") as HTMLSelectElement;
  select.addEventListener("change", () => void load(select.value));
  document.getElementById("refresh")!.addEventListener("click", () => void load(current?.goal.id));
  let resizing: ReturnType<typeof setTimeout> | undefined;
  let lastWidth = window.innerWidth;
  window.addEventListener("resize", () => {
    if (window.innerWidth === lastWidth) return;
    lastWidth = window.innerWidth;
    clearTimeout(resizing);
    resizing = setTimeout(() => current && renderCharts(current), 200);
  });
  await load(params.goalId);
}

function render(data: ClassData): void {
  document.title = `Pathwise · ${data.instance.name}`;
  document.getElementById("instance-name")!.textContent = data.instance.name;
  const select = document.getElementById("goal-select") as HTMLSelectElement;
  select.replaceChildren(...data.goals.map((g) => h("option", { value: g.id, selected: g.id === data.goal.id }, g.name)));
  document.getElementById("context")!.hidden = false;

  main.replaceChildren(
    summary(data),
    h(
      "section",
      { id: "status", "aria-labelledby": "status-h" },
      h("h2", { id: "status-h" }, "Status and progress"),
      h("p", { class: "muted" }, `Goal “${data.goal.name}”. Select a column heading to sort.`),
      statusTable(data),
    ),
    watchList(data),
    chartSection(
      "proficiency",
      "Proficiency by objective",
      "Estimated share of right answers per learning objective of the goal; ± is half the 95% interval, and paler cells are less certain.",
      proficiencyTable(data),
    ),
    chartSection("scores", "Predicted scores of the class", scoreCaption(data), scoresTable(data)),
    chartSection("activity", "Active time per day", "Minutes of active work per calendar day over the last 7 days (your time zone).", activityTable(data)),
    h("p", { class: "muted footer" }, `Loaded ${data.loadedAt.toLocaleString()} from the Pathwise API.`),
  );
  renderCharts(data);
}

function summary(data: ClassData): HTMLElement {
  const count = (s: string) => data.status.filter((r) => r.status_and_progress[0]?.status === s).length;
  const tiles: [string, number][] = [
    ["Learners", data.status.length],
    ["Complete", count("complete") + count("complete_max_work")],
    ["In progress", count("in_progress")],
    ["Struggling", count("struggling")],
    ["Not started", count("no_work")],
  ];
  return h(
    "section",
    { class: "tiles", "aria-label": "Summary" },
    ...tiles.map(([label, n]) => h("div", { class: "tile" }, h("span", { class: "n" }, n), h("span", {}, label))),
  );
}

type SortKey = "learner" | "status" | "progress" | "work" | `target:${number}`;
const STATUS_ORDER = ["struggling", "no_work", "in_progress", "complete_max_work", "complete"];

function statusTable(data: ClassData): HTMLElement {
  const rows = data.status.map((r, index) => ({ row: r, index, cell: r.status_and_progress[0]!, learner: data.learners.get(r.registration_id) }));
  const targets = rows[0]?.cell.targets ?? [];
  const columns: { key: SortKey; label: string }[] = [
    { key: "learner", label: "Learner" },
    { key: "status", label: "Status" },
    { key: "progress", label: "Progress" },
    { key: "work", label: "Work remaining" },
    ...targets.map((t, i) => ({
      key: `target:${i}` as SortKey,
      label: data.targetNames.get(t.target_id ?? t.module_id ?? "") ?? t.target_id ?? t.module_id ?? `Target ${i + 1}`,
    })),
  ];
  const value = (r: (typeof rows)[number], key: SortKey): number | string => {
    if (key === "learner") return r.index;
    if (key === "status") return STATUS_ORDER.indexOf(r.cell.status);
    if (key === "progress") return r.cell.progress;
    if (key === "work") return r.cell.work_remaining < 0 ? Number.POSITIVE_INFINITY : r.cell.work_remaining;
    return r.cell.targets[Number(key.slice(7))]?.progress ?? -1;
  };
  let sortKey: SortKey = "learner";
  let ascending = true;
  const tbody = h("tbody");
  const headRow = h("tr");
  const draw = () => {
    const sorted = [...rows].sort((a, b) => {
      const x = value(a, sortKey);
      const y = value(b, sortKey);
      return (x < y ? -1 : x > y ? 1 : a.index - b.index) * (ascending ? 1 : -1);
    });
    tbody.replaceChildren(...sorted.map((r) => statusRow(r.row, r.learner?.label ?? r.row.registration_id.slice(0, 8))));
    for (const th of headRow.children) {
      const key = th.getAttribute("data-key");
      th.setAttribute("aria-sort", key === sortKey ? (ascending ? "ascending" : "descending") : "none");
    }
  };
  for (const column of columns) {
    const button = h("button", { type: "button", class: "sort" }, column.label, h("span", { class: "sort-mark", "aria-hidden": "true" }));
    button.addEventListener("click", () => {
      ascending = sortKey === column.key ? !ascending : true;
      sortKey = column.key;
      draw();
    });
    headRow.append(h("th", { scope: "col", "data-key": column.key }, button));
  }
  draw();
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { id: "status-table", class: "status" },
      h("caption", { class: "visually-hidden" }, "Status and progress of each learner on the goal"),
      h("thead", {}, headRow),
      tbody,
    ),
  );
}

function statusRow(row: StatusRow, label: string): HTMLElement {
  const cell = row.status_and_progress[0]!;
  return h(
    "tr",
    { "data-registration-id": row.registration_id },
    h("th", { scope: "row" }, label, h("span", { class: "id" }, row.registration_id.slice(0, 8))),
    h("td", { "data-status": cell.status }, h("span", { class: `chip ${cell.status}` }, STATUS_LABELS[cell.status] ?? cell.status)),
    h("td", { "data-progress": cell.progress }, progressBar(cell.progress)),
    h("td", { "data-work-remaining": cell.work_remaining, class: "num" }, cell.work_remaining < 0 ? "unknown" : cell.work_remaining),
    ...cell.targets.map((t) => h("td", { "data-progress": t.progress, "data-status": t.status }, progressBar(t.progress))),
  );
}

function progressBar(x: number): HTMLElement {
  const bar = h("span", { class: "bar-fill" });
  bar.style.width = `${Math.round(x * 100)}%`; // CSSOM, allowed by the page's style-src 'self'
  return h("span", { class: "progress" }, h("span", { class: "bar", "aria-hidden": "true" }, bar), h("span", { class: "pct" }, pct(x)));
}

function watchList(data: ClassData): HTMLElement {
  const groups = data.watch.filter((g) => g.goal_id === data.goal.id && g.registration_ids.length > 0);
  return h(
    "section",
    { id: "watch", "aria-labelledby": "watch-h" },
    h("h2", { id: "watch-h" }, "Learners to watch"),
    groups.length === 0
      ? h("p", {}, "Nobody needs attention on this goal right now.")
      : h(
          "ul",
          { class: "watch" },
          ...groups.map((g) =>
            h(
              "li",
              { "data-group": g.group },
              h("h3", {}, WATCH_LABELS[g.group] ?? g.group, h("span", { class: "count" }, ` · ${g.registration_ids.length}`)),
              h("p", {}, g.reason),
              h("p", { class: "names" }, g.registration_ids.map((id) => data.learners.get(id)?.label ?? id.slice(0, 8)).join(", ")),
            ),
          ),
        ),
  );
}

function chartSection(id: string, title: string, caption: string, fallback: HTMLElement): HTMLElement {
  return h(
    "section",
    { id, "aria-labelledby": `${id}-h` },
    h("h2", { id: `${id}-h` }, title),
    h("figure", {}, h("div", { class: "chart", id: `${id}-chart` }), h("figcaption", {}, caption)),
    h("details", {}, h("summary", {}, "Show the numbers as a table"), fallback),
  );
}

function renderCharts(data: ClassData): void {
  const draw = (id: string, make: (width: number) => Node, empty: boolean) => {
    const host = document.getElementById(`${id}-chart`);
    if (!host) return;
    const width = Math.max(280, Math.min(1100, host.clientWidth || main.clientWidth - 32));
    host.replaceChildren(empty ? h("p", { class: "muted" }, "No data yet.") : make(width));
  };
  draw("proficiency", (w) => proficiencyHeatmap(data, w), data.proficiency.length === 0 || data.objectives.length === 0);
  draw("scores", (w) => scoreDistribution(data, w), data.scores.length === 0);
  draw("activity", (w) => activityChart(data, w), data.activity.rows.length === 0);
}

function scoreCaption(data: ClassData): string {
  const m = data.scores.map((s) => s.p50);
  const at = (q: number) => quantileOf(m, q);
  const base = "Predicted share of right answers on the goal's targets: bars from the 10th to the 90th percentile, dots at the median";
  return m.length ? `${base}. Class median ${pct(at(0.5))}; middle half between ${pct(at(0.25))} and ${pct(at(0.75))}.` : `${base}.`;
}

function proficiencyTable(data: ClassData): HTMLElement {
  return table(
    "Proficiency (95% interval, answers)",
    ["Learner", ...data.objectives.map((o) => o.name)],
    data.proficiency.map((r) => [r.learner.label, ...r.values.map((v) => `${pct(v.proficiency)} (${pct(v.lower)}–${pct(v.upper)}, ${v.evidence})`)]),
    { id: "proficiency-table" },
  );
}

function scoresTable(data: ClassData): HTMLElement {
  return table(
    "Predicted score on the goal's targets",
    ["Learner", "10th percentile", "Median", "90th percentile", "Coverage"],
    data.scores.map((s) => [s.learner.label, pct(s.p10), pct(s.p50), pct(s.p90), pct(s.coverage)]),
    { id: "scores-table" },
  );
}

function activityTable(data: ClassData): HTMLElement {
  return table(
    "Active minutes per day",
    ["Learner", ...data.activity.days.map(shortDay)],
    data.activity.rows.map((r) => [r.learner.label, ...r.values.map((v) => Math.round(v.active_time_ms / 60_000))]),
    { id: "activity-table" },
  );
}

void start();
