// CPU profile of the service's isolate through workerd's inspector (Miniflare `inspectorPort`): the
// V8 sampling profiler runs during a load round, then self time is summed per function and per
// source file, so the costly parts of a request show (`npm run bench -- throughput --profile KEY`).

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** A CDP session with one inspector target. */
class Session {
  #id = 0;
  #pending = new Map<number, (v: unknown) => void>();
  constructor(readonly ws: WebSocket) {
    ws.addEventListener("message", (e) => {
      const msg = JSON.parse(String(e.data)) as { id?: number; result?: unknown };
      if (msg.id !== undefined) this.#pending.get(msg.id)?.(msg.result);
    });
  }
  send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = ++this.#id;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }
}

export async function openProfiler(inspectorPort: number, worker: string): Promise<{ start(): Promise<void>; stop(): Promise<Profile>; close(): void }> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as { id: string; title: string; webSocketDebuggerUrl: string }[];
  const target = targets.find((t) => t.id.includes(worker) || t.title.includes(worker));
  if (!target) throw new Error(`no inspector target for ${worker}: ${targets.map((t) => t.title).join(", ")}`);
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve);
    ws.addEventListener("error", reject);
  });
  const session = new Session(ws);
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: 200 });
  return {
    start: async () => {
      await session.send("Profiler.start");
    },
    stop: async () => ((await session.send("Profiler.stop")) as { profile: Profile }).profile,
    close: () => ws.close(),
  };
}

/** Self time per function (top `n`) and per source, as shares of the sampled time. */
export function summarizeProfile(profile: Profile, n = 40): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) self.set(samples[i] as number, (self.get(samples[i] as number) ?? 0) + (deltas[i] ?? 0));
  const total = [...self.values()].reduce((a, b) => a + b, 0) || 1;
  const perFunction = new Map<string, number>();
  for (const [id, us] of self) {
    const f = byId.get(id)?.callFrame;
    if (!f) continue;
    const key = `${f.functionName || "(anonymous)"} ${f.url.split("/").pop()}:${f.lineNumber + 1}`;
    perFunction.set(key, (perFunction.get(key) ?? 0) + us);
  }
  // Inclusive time: each sample counts once for every function on its stack.
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const inclusive = new Map<string, number>();
  for (let i = 0; i < samples.length; i++) {
    const seen = new Set<string>();
    for (let id: number | undefined = samples[i]; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id)?.callFrame;
      if (!f) continue;
      const key = `${f.functionName || "(anonymous)"} ${f.url.split("/").pop()}:${f.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + (deltas[i] ?? 0));
    }
  }
  const top = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
  return [`sampled ${(total / 1000).toFixed(0)} ms`, "self time:", ...top(perFunction), "inclusive time:", ...top(inclusive)].join("\n");
}
