// One timed round of load: autocannon with a fixed number of connections for a fixed time, each
// response's status and latency recorded (per request kind when a connection cycles through a
// sequence of requests), the workerd processes' CPU time measured from the start of the round
// until the server is idle again (so deferred work the requests caused, such as queue consumers,
// counts for them).
import autocannon from "autocannon";
import { cpuMs, settle } from "./cpu";

export interface RequestSpec {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** A scenario's traffic: `next(connection, step)` gives each connection's next request. */
export interface Traffic {
  url: string;
  /** requests per cycle of a connection (1 for a single request kind; 2 for a pair) */
  sequence: number;
  next: (connection: number, step: number) => RequestSpec;
}

export interface RoundResult {
  requests: number;
  durationS: number;
  /** latencies (ms) per position in the sequence */
  latencies: number[][];
  statuses: Record<number, number>;
  errors: number;
  cpuMs: number;
  /** CPU of the settle phase alone (deferred work), included in cpuMs */
  tailCpuMs: number;
}

export interface RoundOptions {
  connections: number;
  /** a timed round (requests still in flight at the end are dropped: use it for warm-ups) */
  seconds: number;
  /**
   * a counted round: exactly this many requests, every one answered (none dropped, so the CPU
   * they cost and the requests counted match); the duration is until the last answer
   */
  amount?: number;
  pids: number[];
  /** how long the server must stay quiet after the round before it counts as idle (ms) */
  quietMs: number;
  /** offered load in requests per second over all connections (autocannon's overallRate); none: as fast as answered */
  rate?: number;
}

export async function round(traffic: Traffic, options: RoundOptions): Promise<RoundResult> {
  const latencies: number[][] = Array.from({ length: traffic.sequence }, () => []);
  const statuses: Record<number, number> = {};
  let nextConnection = 0;
  const counts = new Map<object, { id: number; sent: number }>();
  const stateOf = (context: object) => {
    let s = counts.get(context);
    if (!s) {
      s = { id: nextConnection++, sent: 0 };
      counts.set(context, s);
    }
    return s;
  };
  const requests = Array.from({ length: traffic.sequence }, () => ({
    setupRequest: (request: autocannon.Request, context: object) => {
      const s = stateOf(context);
      const spec = traffic.next(s.id, s.sent++);
      return { ...request, method: spec.method, path: spec.path, headers: spec.headers ?? {}, body: spec.body } as autocannon.Request;
    },
  }));
  const startCpu = cpuMs(options.pids);
  const t0 = performance.now();
  let finish: (r: autocannon.Result) => void = () => {};
  let fail: (e: unknown) => void = () => {};
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const instance = autocannon(
    {
      url: traffic.url,
      connections: options.connections,
      ...(options.amount ? { amount: options.amount } : { duration: options.seconds }),
      ...(options.rate ? { overallRate: options.rate } : {}),
      requests,
      timeout: 60,
    },
    (error, result) => (error ? fail(error) : finish(result)),
  );
  // Latency per position in the sequence: each connection's responses come back in order.
  const clientSteps = new Map<object, number>();
  let lastResponse = t0;
  instance.on("response", (client: object, status: number, _bytes: number, ms: number) => {
    lastResponse = performance.now();
    const step = clientSteps.get(client) ?? 0;
    clientSteps.set(client, step + 1);
    (latencies[step % traffic.sequence] as number[]).push(ms);
    statuses[status] = (statuses[status] ?? 0) + 1;
  });
  const result = await done;
  const durationS = ((options.amount ? lastResponse : performance.now()) - t0) / 1000;
  const loadCpu = cpuMs(options.pids) - startCpu;
  const tail = await settle(options.pids, options.quietMs);
  return {
    requests: latencies.reduce((n, l) => n + l.length, 0),
    durationS,
    latencies,
    statuses,
    errors: result.errors + result.timeouts,
    cpuMs: loadCpu + tail.cpuMs,
    tailCpuMs: tail.cpuMs,
  };
}
