import { describe, expect, it } from "vitest";
import { atLeast, atMost, budgetLine, quantile, ratio, summarize, table } from "../../../bench/throughput/stats";

describe("throughput benchmark arithmetic", () => {
  it("quantiles by nearest rank", () => {
    const xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(quantile(xs, 0.5)).toBe(5);
    expect(quantile(xs, 0.99)).toBe(10);
    expect(quantile(xs, 0)).toBe(1);
    expect(quantile([7], 0.99)).toBe(7);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it("pools rounds: requests over total time, CPU over requests, latency quantiles over every sample", () => {
    const s = summarize([
      { requests: 100, durationS: 10, latencies: [1, 2, 3], cpuMs: 200 },
      { requests: 300, durationS: 10, latencies: [4, 5, 6, 7], cpuMs: 600 },
    ]);
    expect(s.rps).toBe(20);
    expect(s.cpu).toBe(2);
    expect(s.p50).toBe(4);
    expect(s.p99).toBe(7);
    expect(s.requests).toBe(400);
    expect(summarize([]).rps).toBe(0);
    expect(summarize([]).cpu).toBeNaN();
  });

  it("ratios and budget lines", () => {
    expect(ratio(30, 60)).toBe(0.5);
    expect(ratio(1, 0)).toBe(0);
    const lines = [
      atLeast("a", 0.61, 0.6, "ratio to floor"),
      atLeast("b", 0.59, 0.6, "ratio to floor"),
      atMost("c", 1.2, 1.2, "cost ratio"),
      atMost("d", Number.NaN, 3, "cost ratio"),
    ];
    expect(lines.map((l) => l.met)).toEqual([true, false, true, false]);
    expect(lines[1]?.detail).toBe("ratio to floor 0.590 (needs >= 0.600)");
    expect(budgetLine(lines)).toBe("budget: 2 met, 2 missed");
  });

  it("tables are Markdown with padded columns", () => {
    expect(table(["a", "bb"], [["xyz", "1"]]).split("\n")).toEqual(["| a   | bb |", "| --- | -- |", "| xyz | 1  |"]);
  });
});
