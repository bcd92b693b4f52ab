// `npm run soak -- --minutes N [--registrations R] [--writers W]`: a soak test of event ingestion
// against a local Worker (wrangler dev on 127.0.0.1, its own state directory, rate limits off).
//
// Many registrations; W concurrent writers post batches of 1-5 events, each batch with its own
// Idempotency-Key. Some responses are deliberately lost (the client aborts after a few ms) and
// retried with the same key; some batches are deliberately sent twice at once, or again after
// their 204. Every event carries a unique marker (its `duration`). At the end, the operator audit
// (GET /ops/registrations/{id}/audit, docs/security.md) lists each registration's stored events:
// every accepted event must be stored exactly once, and each learner state must equal the replay
// of its log. Prints requests, events, retries, duplicates sent, lost and duplicated; exits 1 if
// anything was lost, duplicated or inconsistent. Localhost only, bounded by --minutes.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type LocalService, startLocalService } from "./lib/local-service";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "1" },
    registrations: { type: "string", default: "200" },
    writers: { type: "string", default: "16" },
  },
});
const minutes = Number(values.minutes);
const registrationCount = Number(values.registrations);
const writerCount = Number(values.writers);
if (!(minutes > 0 && minutes <= 240)) throw new Error("--minutes must be > 0 and at most 240");
if (!(Number.isInteger(registrationCount) && registrationCount > 0 && registrationCount <= 5000)) throw new Error("--registrations must be 1 to 5000");
if (!(Number.isInteger(writerCount) && writerCount > 0 && writerCount <= 64)) throw new Error("--writers must be 1 to 64");

const graph = JSON.parse(readFileSync(new URL("../samples/pre-algebra/graph.json", import.meta.url), "utf8")) as {
  label: string;
  modules: { id: string; type: string }[];
};
const gradedModules = graph.modules.filter((m) => m.type !== "instructional").map((m) => m.id);
const ungradedModules = graph.modules.filter((m) => m.type !== "assessment").map((m) => m.id);

const stats = { requests: 0, batches: 0, events: 0, retries: 0, duplicatesSent: 0, lostResponses: 0, refused: 0, gaveUp: 0, errors5xx: 0 };
/** marker (duration) -> registration, for every event whose batch got a 204 */
const accepted = new Map<number, string>();
/** markers of batches that never got a 204 (given up): they may or may not be stored, but at most once */
const unconfirmed = new Map<number, string>();
let nextMarker = 1;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)] as T;

async function api(service: LocalService, method: string, path: string, body?: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) {
  stats.requests++;
  const res = await fetch(`${service.base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${service.adminToken}`, "Content-Type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as { id?: string; [field: string]: unknown }) : null };
}

async function setup(service: LocalService): Promise<string[]> {
  const g = await api(service, "POST", "/v0/graphs", graph);
  if (g.status !== 201) throw new Error(`graph: ${g.status} ${JSON.stringify(g.body)}`);
  const li = await api(service, "POST", "/v0/learning-instances", { graph_id: graph.label, name: "Soak course" });
  if (li.status !== 201) throw new Error(`instance: ${li.status} ${JSON.stringify(li.body)}`);
  const ids: string[] = [];
  let n = 0;
  const worker = async () => {
    while (n < registrationCount) {
      const i = n++;
      const account = await api(service, "POST", "/v0/accounts", { external_user_id: `soak-${i}-${randomBytes(4).toString("hex")}` });
      const reg = await api(service, "POST", "/v0/registrations", { account_id: account.body?.id, learning_instance_id: li.body?.id, type: "learner" });
      if (reg.status !== 201) throw new Error(`registration: ${reg.status} ${JSON.stringify(reg.body)}`);
      ids.push(String(reg.body?.id));
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return ids;
}

/** One batch: sent until a 204 (retrying lost responses and 5xx with the same key), sometimes twice on purpose. */
async function writeBatch(service: LocalService, registration: string): Promise<void> {
  const now = Date.now();
  const size = 1 + Math.floor(Math.random() * 5);
  const events = Array.from({ length: size }, (_, i) => {
    const marker = nextMarker++;
    const time = new Date(now - (i + 1) * 1000).toISOString(); // most recent first
    return Math.random() < 0.7
      ? { type: "graded-events", module_id: pick(gradedModules), interaction_end_time: time, is_correct: Math.random() < 0.6, duration: marker }
      : { type: "ungraded-events", module_id: pick(ungradedModules), interaction_end_time: time, duration: marker };
  });
  const body = { events };
  const headers = { "Idempotency-Key": `soak-${randomBytes(12).toString("hex")}` };
  const path = `/v0/registrations/${registration}/batch-events`;
  stats.batches++;

  const send = async (abortAfterMs?: number) => {
    try {
      return (await api(service, "POST", path, body, headers, abortAfterMs === undefined ? undefined : AbortSignal.timeout(abortAfterMs))).status;
    } catch {
      stats.lostResponses++;
      return 0; // the response was lost: the request may or may not have been processed
    }
  };

  let status: number;
  if (Math.random() < 0.05) {
    // a deliberate duplicate, sent concurrently
    stats.duplicatesSent++;
    const [a, b] = await Promise.all([send(), send()]);
    status = a === 204 || b === 204 ? 204 : a || b;
  } else {
    status = await send(Math.random() < 0.05 ? 1 + Math.floor(Math.random() * 30) : undefined);
  }
  for (let attempt = 1; status !== 204 && attempt <= 8; attempt++) {
    if (status >= 400 && status < 500) break;
    if (status >= 500) stats.errors5xx++;
    stats.retries++;
    await sleep(Math.min(2000, 50 * 2 ** attempt));
    status = await send();
  }
  const target = status === 204 ? accepted : unconfirmed;
  for (const e of events) target.set(e.duration, registration);
  if (status === 204) {
    stats.events += events.length;
    if (Math.random() < 0.05) {
      // a deliberate duplicate, sent again after its 204: must be answered 204 and store nothing
      stats.duplicatesSent++;
      const again = await send();
      if (again !== 204 && again !== 0) throw new Error(`a repeated batch was answered ${again}`);
    }
  } else if (status >= 400 && status < 500) stats.refused++;
  else stats.gaveUp++;
}

async function audit(service: LocalService, operatorToken: string, registration: string) {
  const markers: number[] = [];
  let consistent = false;
  let after = 0;
  for (;;) {
    const res = await fetch(`${service.base}/ops/registrations/${registration}/audit?after=${after}&limit=1000`, {
      headers: { Authorization: `Bearer ${operatorToken}` },
    });
    if (res.status !== 200) throw new Error(`audit ${registration}: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as { events: { body: { duration?: number } }[]; next_after?: number; state_matches_replay?: boolean };
    if (after === 0) consistent = page.state_matches_replay === true;
    for (const e of page.events) if (typeof e.body.duration === "number") markers.push(e.body.duration);
    if (page.next_after === undefined) break;
    after = page.next_after;
  }
  return { markers, consistent };
}

async function main(): Promise<void> {
  const operatorToken = randomBytes(24).toString("hex");
  console.log(`soak: starting a local Worker (rate limits off), ${registrationCount} registrations, ${writerCount} writers, ${minutes} min`);
  const service = await startLocalService({ vars: { RATE_LIMIT_MULTIPLIER: "off", OPERATOR_TOKEN: operatorToken } });
  const stop = async () => {
    await service.stop();
  };
  process.once("SIGINT", () => void stop().then(() => process.exit(130)));
  try {
    const registrations = await setup(service);
    console.log(`soak: ${registrations.length} registrations ready on ${service.base}; writing for ${minutes} min`);
    const started = Date.now();
    const deadline = started + minutes * 60_000;
    let lastReport = started;
    const writer = async () => {
      while (Date.now() < deadline) {
        await writeBatch(service, pick(registrations));
        if (Date.now() - lastReport >= 60_000) {
          lastReport = Date.now();
          console.log(`soak: ${Math.round((lastReport - started) / 60_000)} min: ${JSON.stringify(stats)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: writerCount }, writer));
    const elapsed = (Date.now() - started) / 1000;
    // let aborted requests that the server still processes finish before auditing
    await sleep(3000);

    console.log("soak: auditing every registration's event log and learner state");
    const stored = new Map<number, number>();
    let inconsistent = 0;
    let storedEvents = 0;
    for (const registration of registrations) {
      const { markers, consistent } = await audit(service, operatorToken, registration);
      if (!consistent) inconsistent++;
      storedEvents += markers.length;
      for (const m of markers) stored.set(m, (stored.get(m) ?? 0) + 1);
    }
    let lost = 0;
    let duplicated = 0;
    for (const marker of accepted.keys()) if ((stored.get(marker) ?? 0) === 0) lost++;
    for (const count of stored.values()) if (count > 1) duplicated++;
    const unconfirmedStored = [...unconfirmed.keys()].filter((m) => stored.has(m)).length;
    const strangers = [...stored.keys()].filter((m) => !accepted.has(m) && !unconfirmed.has(m)).length;

    console.log(
      [
        `soak finished after ${elapsed.toFixed(0)} s against ${service.base} (${writerCount} writers, ${registrations.length} registrations)`,
        `requests ${stats.requests} (${(stats.requests / elapsed).toFixed(1)}/s), batches ${stats.batches}, events accepted ${stats.events}, stored ${storedEvents}`,
        `retries ${stats.retries} (lost responses ${stats.lostResponses}, 5xx ${stats.errors5xx}), duplicates sent ${stats.duplicatesSent}, refused ${stats.refused}, gave up ${stats.gaveUp} (events of those stored: ${unconfirmedStored})`,
        `lost ${lost}, duplicated ${duplicated}, unknown stored ${strangers}, learner states differing from their replay ${inconsistent}`,
      ].join("\n"),
    );
    if (lost || duplicated || strangers || inconsistent || stats.refused) process.exitCode = 1;
  } finally {
    await stop();
  }
}

await main();
