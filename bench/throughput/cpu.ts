// Server CPU time from /proc: utime + stime of the workerd processes, in milliseconds.
import { readFileSync } from "node:fs";

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime (ms) summed over the processes; a process that has exited counts 0. */
export function cpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // fields[0] is field 3 (state): utime is field 14, stime field 15
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      /* exited */
    }
  }
  return ticks * TICK_MS;
}

/** The 1-, 5- and 15-minute load averages. */
export function loadAverage(): [number, number, number] {
  const [a = "0", b = "0", c = "0"] = readFileSync("/proc/loadavg", "utf8").split(" ");
  return [Number(a), Number(b), Number(c)];
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until the server is idle: its CPU use stays under `threshold` (share of one core) for
 * `quietMs` in a row (queue consumers and outbox alarms finish their work), or `maxMs` passed.
 * Returns the CPU ms spent while waiting and whether it went quiet.
 */
export async function settle(
  pids: number[],
  quietMs: number,
  maxMs = quietMs + 30_000,
  threshold = 0.03,
): Promise<{ cpuMs: number; quiet: boolean; waitedMs: number }> {
  const start = Date.now();
  const startCpu = cpuMs(pids);
  let quietSince = Date.now();
  let last = startCpu;
  const step = 250;
  while (Date.now() - start < maxMs) {
    await sleep(step);
    const now = cpuMs(pids);
    if (now - last > threshold * step) quietSince = Date.now();
    last = now;
    if (Date.now() - quietSince >= quietMs) return { cpuMs: now - startCpu, quiet: true, waitedMs: Date.now() - start };
  }
  return { cpuMs: cpuMs(pids) - startCpu, quiet: false, waitedMs: Date.now() - start };
}
