import { DurableObject } from "cloudflare:workers";
import { openDb } from "../db/client";
import type { Env } from "../env";
import { findModule, type GraphIndex } from "../graphs/runtime-graph";
import { applyEvent, type ItemEntry, initialLearnerState, type LearnerEvent, type LearnerState, type ModelParams, predictCorrect } from "../model";
import { SERVICE_PARAMS, SERVICE_PARAMS_ID } from "../model/service-params";
import type { ErrorDetail } from "../schemas/common";
import { loadRuntimeGraph } from "../services/graph-store";
import { type ItemObservation, loadItemParams, type ModelUpdateMessage } from "../services/item-params";
import { modelGraphFor } from "./model-graph";
import { outboxMessages, utf8Bytes } from "./outbox-messages";
import type { EventInput, IngestOutcome, IngestRequest } from "./registration-events";
import { migrate } from "./registration-schema";

const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** Queues take batches of at most 256 KB and 100 messages. */
const SEND_BATCH_BYTES = 200_000;

interface StoredEventRow extends Record<string, SqlStorageValue> {
  seq: number;
  kind: string;
  module: string | null;
  graph_version: number | null;
  occurred_at: number;
  body: string;
}

/**
 * One object per registration. It serializes every event post of the registration, keeps the
 * append-only event log, the learner state (updated incrementally: O(1) per event, independent of
 * history length) and the goal focus, all in its SQLite storage.
 */
export class RegistrationObject extends DurableObject<Env> {
  #state: LearnerState | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    migrate(ctx.storage);
  }

  /** Validates and stores a set of events atomically (all or nothing), then applies them to the learner state. */
  async ingest(request: IngestRequest): Promise<IngestOutcome> {
    const storage = this.ctx.storage;
    const fingerprint = request.idempotencyKey ? await fingerprintOf(request) : undefined;
    const earlier = this.#idempotentOutcome(request, fingerprint);
    if (earlier) return earlier;

    await this.#ensureStateMatchesParams();
    const graph = await this.#graph(request.graphUuid, request.graphVersion);
    const items = await loadItemParams(openDb(this.env.DB), request.graphUuid, request.nowMs);
    // Everything below is synchronous: no other request of this registration can interleave. The
    // awaits above let another request in, so the idempotency key is looked up again.
    const raced = this.#idempotentOutcome(request, fingerprint);
    if (raced) return raced;
    const resolved = resolveModules(graph, request.events, request.ignoreInvalidModuleIds);
    let outcome: IngestOutcome;
    if (resolved.details.length > 0) {
      outcome = {
        ok: false,
        status: 422,
        message: "Unrecognized module id(s): events are accepted on atoms of the learning instance's graph only.",
        details: resolved.details,
        replayed: false,
      };
    } else {
      outcome = { ok: true, stored: resolved.accepted.length, ignored: request.events.length - resolved.accepted.length, replayed: false };
    }

    let next: LearnerState | undefined;
    storage.transactionSync(() => {
      if (outcome.ok) next = this.#append(request, resolved.accepted, graph, items);
      if (request.idempotencyKey) {
        storage.sql.exec("DELETE FROM idempotency WHERE created_at <= ?", request.nowMs - IDEMPOTENCY_TTL_MS);
        storage.sql.exec(
          "INSERT OR REPLACE INTO idempotency (key, outcome, created_at, fingerprint) VALUES (?, ?, ?, ?)",
          request.idempotencyKey,
          JSON.stringify(outcome),
          request.nowMs,
          fingerprint ?? null,
        );
      }
    });
    // Only after the commit: a failed transaction leaves the cached state as it was.
    if (next) {
      this.#state = next;
      // The outbox is sent by the alarm, off the response path; it retries until the queue takes it.
      if ((await storage.getAlarm()) === null) await storage.setAlarm(Date.now());
    }
    return outcome;
  }

  /**
   * The first outcome for a repeated Idempotency-Key (24 h), or a 422 when the key comes back with a
   * different request: answering 204 there would claim events were stored that were not.
   */
  #idempotentOutcome(request: IngestRequest, fingerprint: string | undefined): IngestOutcome | undefined {
    if (!request.idempotencyKey) return undefined;
    const previous = this.ctx.storage.sql
      .exec<{ outcome: string; fingerprint: string | null }>(
        "SELECT outcome, fingerprint FROM idempotency WHERE key = ? AND created_at > ?",
        request.idempotencyKey,
        request.nowMs - IDEMPOTENCY_TTL_MS,
      )
      .toArray()[0];
    if (!previous) return undefined;
    if (previous.fingerprint !== null && previous.fingerprint !== fingerprint) {
      return {
        ok: false,
        status: 422,
        message: "This Idempotency-Key was already used for a different request; use a new key for new events.",
        details: [{ path: "header.idempotency-key", message: "reused with a different body" }],
        replayed: false,
      };
    }
    return { ...(JSON.parse(previous.outcome) as IngestOutcome), replayed: true };
  }

  /** The incrementally maintained learner state. */
  async learnerState(): Promise<LearnerState> {
    await this.#ensureStateMatchesParams();
    return this.#learnerState();
  }

  /** The learner state rebuilt from the event log alone (must equal `learnerState()`). */
  async replayedState(): Promise<LearnerState> {
    const state = initialLearnerState(SERVICE_PARAMS);
    const graphUuid = this.ctx.storage.kv.get<string>("graph_uuid");
    if (!graphUuid) return state;
    const rows = this.ctx.storage.sql
      .exec<StoredEventRow>("SELECT seq, kind, module, graph_version, occurred_at, body FROM events WHERE kind IN ('graded', 'ungraded') ORDER BY seq")
      .toArray();
    for (const row of rows) {
      const graph = await this.#graph(graphUuid, row.graph_version ?? 1);
      const stored = toLearnerEvent(graph, row);
      if (stored) applyEvent(state, paramsWith(stored.event.itemKey, stored.item), modelGraphFor(graph), stored.event);
    }
    return state;
  }

  /** Number of events in the log. */
  async eventCount(): Promise<number> {
    return this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM events").one().n;
  }

  async focus(): Promise<string | undefined> {
    return this.ctx.storage.kv.get<string>("focus_goal_id");
  }

  /** Sends the outbox to the model-updates queue; a failure leaves it for the next attempt. */
  override async alarm(): Promise<void> {
    const registrationId = this.ctx.storage.kv.get<string>("registration_id") ?? this.ctx.id.toString();
    const rows: { id: number; body: string }[] = [];
    let bytes = 0;
    for (const row of this.ctx.storage.sql.exec<{ id: number; body: string }>("SELECT id, body FROM outbox ORDER BY id LIMIT 100")) {
      const size = utf8Bytes(row.body);
      if (rows.length > 0 && bytes + size > SEND_BATCH_BYTES) break;
      rows.push(row);
      bytes += size;
    }
    if (rows.length === 0) return;
    try {
      // The message id makes the consumer's work exactly-once even if a send is repeated.
      await this.env.MODEL_UPDATES.sendBatch(
        rows.map((r) => ({ body: { id: `${registrationId}:${r.id}`, ...(JSON.parse(r.body) as Omit<ModelUpdateMessage, "id">) } })),
      );
    } catch (error) {
      console.error(JSON.stringify({ registration: registrationId, outbox: "send failed, retrying", error: String(error) }));
      await this.ctx.storage.setAlarm(Date.now() + 10_000);
      return;
    }
    const last = rows[rows.length - 1]?.id ?? 0;
    this.ctx.storage.sql.exec("DELETE FROM outbox WHERE id <= ?", last);
    if (this.ctx.storage.sql.exec("SELECT id FROM outbox LIMIT 1").toArray().length > 0) await this.ctx.storage.setAlarm(Date.now());
  }

  /** Messages waiting in the outbox (for tests and operations). */
  async outboxSize(): Promise<number> {
    return this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM outbox").one().n;
  }

  /** Writes the events and the updated learner state (inside the caller's transaction); returns the new state. */
  #append(request: IngestRequest, accepted: ResolvedEvent[], graph: GraphIndex, items: Record<string, ItemEntry>): LearnerState {
    const { storage } = this.ctx;
    // Constants of the registration: written once, not on every post.
    if (storage.kv.get("registration_id") === undefined) {
      storage.kv.put("registration_id", request.registrationId);
      storage.kv.put("graph_uuid", request.graphUuid);
    }
    if (request.focusGoalId) {
      storage.sql.exec(
        "INSERT INTO events (kind, module, graph_version, occurred_at, received_at, body) VALUES ('focus', NULL, NULL, ?, ?, ?)",
        request.nowMs,
        request.nowMs,
        JSON.stringify({ goal_id: request.focusGoalId }),
      );
      storage.kv.put("focus_goal_id", request.focusGoalId);
    }
    const state = structuredClone(this.#learnerState());
    const modelGraph = modelGraphFor(graph);
    const observations: ItemObservation[] = [];
    for (const { input, module } of accepted) {
      const label = graph.graph.modules[module]?.label ?? input.moduleId;
      const body = eventBody(input);
      // The item parameters in force are stored with the event, so a replay applies exactly the same update.
      const item = items[label];
      if (item && input.kind !== "recommendation-followed") body.item = item;
      storage.sql.exec(
        "INSERT INTO events (kind, module, graph_version, occurred_at, received_at, body) VALUES (?, ?, ?, ?, ?, ?)",
        input.kind,
        label,
        graph.graph.version,
        input.occurredAt,
        request.nowMs,
        JSON.stringify(body),
      );
      const event = learnerEventOf(graph, module, input.kind, input.correct, input.occurredAt);
      if (!event) continue;
      const params = paramsWith(event.itemKey, item);
      if (event.kind === "graded") {
        const predicted = predictCorrect(state, params, event, input.occurredAt);
        observations.push({ module: label, objectives: [...event.objectives], correct: event.correct === true, predicted });
      }
      applyEvent(state, params, modelGraph, event);
    }
    storage.kv.put("learner_state", state);
    storage.kv.put("model_params_id", SERVICE_PARAMS_ID);
    for (const body of outboxMessages(request.graphUuid, observations)) storage.sql.exec("INSERT INTO outbox (body) VALUES (?)", body);
    return state;
  }

  /**
   * A state computed under other model parameters (a recalibration was deployed since) is rebuilt
   * from the log once, with other requests of this registration held until it is done.
   */
  async #ensureStateMatchesParams(): Promise<void> {
    const kept = this.ctx.storage.kv.get<string>("model_params_id");
    if (kept === SERVICE_PARAMS_ID || this.ctx.storage.kv.get("learner_state") === undefined) return;
    await this.ctx.blockConcurrencyWhile(async () => {
      if (this.ctx.storage.kv.get<string>("model_params_id") === SERVICE_PARAMS_ID) return;
      const rebuilt = await this.replayedState();
      this.ctx.storage.kv.put("learner_state", rebuilt);
      this.ctx.storage.kv.put("model_params_id", SERVICE_PARAMS_ID);
      this.#state = rebuilt;
    });
  }

  #learnerState(): LearnerState {
    this.#state ??= this.ctx.storage.kv.get<LearnerState>("learner_state") ?? initialLearnerState(SERVICE_PARAMS);
    return this.#state;
  }

  async #graph(graphUuid: string, version: number): Promise<GraphIndex> {
    const graph = await loadRuntimeGraph(openDb(this.env.DB), graphUuid, version);
    if (!graph) throw new Error(`graph ${graphUuid}@${version} is missing`);
    return graph;
  }
}

interface ResolvedEvent {
  input: EventInput;
  module: number;
}

function resolveModules(graph: GraphIndex, events: EventInput[], ignoreInvalid: boolean): { accepted: ResolvedEvent[]; details: ErrorDetail[] } {
  const accepted: ResolvedEvent[] = [];
  const details: ErrorDetail[] = [];
  for (const input of events) {
    const module = findModule(graph, input.moduleId);
    const atom = module !== undefined && graph.graph.modules[module]?.atom === true;
    if (atom) accepted.push({ input, module });
    else if (!ignoreInvalid) {
      details.push({
        path: input.path,
        message: module === undefined ? `'${input.moduleId}' is not a module of the graph` : `'${input.moduleId}' is a bundle; send events on its atoms`,
      });
    }
  }
  return { accepted, details };
}

function eventBody(input: EventInput): Record<string, unknown> {
  const body: Record<string, unknown> = { module_id: input.moduleId };
  if (input.correct !== undefined) body.is_correct = input.correct;
  if (input.durationMs !== undefined) body.duration = input.durationMs;
  if (input.goalId !== undefined) body.goal_id = input.goalId;
  if (input.instanceHash !== undefined) body.instance_hash = input.instanceHash;
  if (input.recommendationId !== undefined) body.recommendation_id = input.recommendationId;
  return body;
}

function learnerEventOf(graph: GraphIndex, module: number, kind: string, correct: boolean | undefined, timeMs: number): LearnerEvent | undefined {
  const m = graph.graph.modules[module];
  if (!m) return undefined;
  const objectives = m.objectives.map((o) => graph.graph.objectives[o] as string);
  if (kind === "graded") return { kind: "graded", itemKey: m.label, objectives, correct: correct === true, timeMs };
  if (kind === "ungraded") return { kind: "ungraded", itemKey: m.label, objectives, timeMs };
  return undefined;
}

function toLearnerEvent(graph: GraphIndex, row: StoredEventRow): { event: LearnerEvent; item?: ItemEntry } | undefined {
  const module = row.module ? findModule(graph, row.module) : undefined;
  if (module === undefined) return undefined;
  const body = JSON.parse(row.body) as { is_correct?: boolean; item?: ItemEntry };
  const event = learnerEventOf(graph, module, row.kind, body.is_correct, row.occurred_at);
  return event && { event, item: body.item };
}

/** The service parameters with the one item entry an event needs (the model reads no other item). */
function paramsWith(itemKey: string, item: ItemEntry | undefined): ModelParams {
  return item ? { ...SERVICE_PARAMS, items: { [itemKey]: item } } : SERVICE_PARAMS;
}

/** SHA-256 of what the request asks to store, so a reused Idempotency-Key can be told apart. */
async function fingerprintOf(request: IngestRequest): Promise<string> {
  const text = JSON.stringify({ events: request.events, focus: request.focusGoalId ?? null, ignore: request.ignoreInvalidModuleIds });
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
