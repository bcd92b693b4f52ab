import { DurableObject } from "cloudflare:workers";
import { openDb } from "../../db/client";
import type { Env } from "../../env";
import type { GraphIndex } from "../../graphs/runtime-graph";
import { applyEvent, type ItemEntry, type LearnerState, predictCorrect } from "../../model";
import { unknownGoals } from "../../services/events";
import { loadRuntimeGraph } from "../../services/graph-store";
import { type ItemObservation, loadItemParams } from "../../services/item-params";
import { EventLog, learnerEventOf, loggedBody } from "./event-log";
import { fingerprintOf, IdempotencyRecords } from "./idempotency";
import { LearnerStateStore, paramsWith, replayLearnerState } from "./learner-state-store";
import { modelGraphFor } from "./model-graph";
import { Outbox } from "./outbox";
import { type ResolvedEvent, resolveModules } from "./resolve-modules";
import type { AuditPage, AuditState, IngestOutcome, IngestRequest } from "./rpc";
import { migrate } from "./schema";

/** How soon the alarm retries an outbox send the queue refused. */
const OUTBOX_RETRY_MS = 10_000;

/**
 * One object per registration. It serializes every event post of the registration and keeps, in
 * its SQLite storage, the append-only event log (./event-log.ts), the learner state
 * (./learner-state-store.ts), the goal focus, the Idempotency-Key records (./idempotency.ts) and the
 * outbox of model updates (./outbox.ts). This class only orchestrates them.
 */
export class RegistrationObject extends DurableObject<Env> {
  readonly #log: EventLog;
  readonly #idempotency: IdempotencyRecords;
  readonly #learner: LearnerStateStore;
  readonly #outbox: Outbox;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    migrate(ctx.storage);
    this.#log = new EventLog(ctx.storage.sql);
    this.#idempotency = new IdempotencyRecords(ctx.storage.sql);
    this.#learner = new LearnerStateStore(ctx.storage.kv);
    this.#outbox = new Outbox(ctx.storage.sql);
  }

  /** Validates and stores a set of events atomically (all or nothing), then applies them to the learner state. */
  async ingest(request: IngestRequest): Promise<IngestOutcome> {
    const key = request.idempotencyKey;
    const fingerprint = key ? await fingerprintOf(request) : "";
    const earlier = key ? this.#idempotency.outcomeFor(key, fingerprint, request.nowMs) : undefined;
    if (earlier) return earlier;

    // Only a new request is checked against current data (goals, modules): a stored key was answered above.
    const db = openDb(this.env.DB);
    const goalProblems = await unknownGoals(db, request.learningInstanceId, request.goals);
    await this.#ensureStateMatchesParams();
    const graph = await this.#graph(request.graphUuid, request.graphVersion);
    const items = await loadItemParams(db, request.graphUuid, request.nowMs);
    // Everything below is synchronous: no other request of this registration can interleave. The
    // awaits above let another request in, so the idempotency key is looked up again.
    const raced = key ? this.#idempotency.outcomeFor(key, fingerprint, request.nowMs) : undefined;
    if (raced) return raced;
    const resolved = resolveModules(graph, request.events, request.ignoreInvalidModuleIds);
    const outcome: IngestOutcome =
      goalProblems.length > 0
        ? { ok: false, status: 422, message: "Unknown goal id(s).", details: goalProblems, replayed: false }
        : resolved.details.length > 0
          ? {
              ok: false,
              status: 422,
              message: "Unrecognized module id(s): events are accepted on atoms of the learning instance's graph only.",
              details: resolved.details,
              replayed: false,
            }
          : { ok: true, stored: resolved.accepted.length, ignored: request.events.length - resolved.accepted.length, replayed: false };

    let next: LearnerState | undefined;
    this.ctx.storage.transactionSync(() => {
      if (outcome.ok) next = this.#append(request, resolved.accepted, graph, items);
      if (key) this.#idempotency.record(key, outcome, fingerprint, request.nowMs);
    });
    // Only after the commit: a failed transaction leaves the cached state as it was.
    if (next) {
      this.#learner.adopt(next);
      // The outbox is sent by the alarm, off the response path; it retries until the queue takes it.
      if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now());
    }
    return outcome;
  }

  /** The learner state, rebuilt from the log first if it was computed under other model parameters. */
  async learnerState(): Promise<LearnerState> {
    await this.#ensureStateMatchesParams();
    return this.#learner.current();
  }

  /**
   * Operator audit (docs/security.md "Operator diagnostics", read-only): a page of the stored events,
   * so an operator can check what a registration holds (the soak test checks exactly-once with it).
   */
  auditEvents(afterSeq: number, limit: number): AuditPage {
    const rows = this.#log.page(afterSeq, limit);
    const events = rows.map((r) => ({
      seq: r.seq,
      kind: r.kind,
      module: r.module,
      graph_version: r.graph_version,
      occurred_at: r.occurred_at,
      body: JSON.parse(r.body),
    }));
    const last = rows.at(-1);
    return { event_count: this.#log.count(), events, ...(rows.length === limit && last ? { next_after: last.seq } : {}) };
  }

  /** Operator audit: whether the kept learner state equals its replay from the event log. */
  async auditState(): Promise<AuditState> {
    await this.#ensureStateMatchesParams();
    const kept = canonicalJson(this.#learner.current());
    const replayed = canonicalJson(await this.#replay());
    return { event_count: this.#log.count(), state_matches_replay: kept === replayed };
  }

  /** Sends the outbox to the model-updates queue; a failure leaves it for the next attempt. */
  override async alarm(): Promise<void> {
    const registrationId = this.ctx.storage.kv.get<string>("registration_id") ?? this.ctx.id.toString();
    const sent = await this.#outbox.sendNext(this.env.MODEL_UPDATES, registrationId);
    if (sent === "failed") await this.ctx.storage.setAlarm(Date.now() + OUTBOX_RETRY_MS);
    else if (sent === "more") await this.ctx.storage.setAlarm(Date.now());
  }

  /** Writes the events, the focus and the updated learner state (inside the caller's transaction); returns the new state. */
  #append(request: IngestRequest, accepted: ResolvedEvent[], graph: GraphIndex, items: Record<string, ItemEntry>): LearnerState {
    const { kv } = this.ctx.storage;
    // Constants of the registration: written once, not on every post.
    if (kv.get("registration_id") === undefined) {
      kv.put("registration_id", request.registrationId);
      kv.put("graph_uuid", request.graphUuid);
    }
    if (request.focusGoalId) {
      this.#log.appendFocus(request.focusGoalId, request.nowMs);
      kv.put("focus_goal_id", request.focusGoalId);
    }
    const state = structuredClone(this.#learner.current());
    const modelGraph = modelGraphFor(graph);
    const observations: ItemObservation[] = [];
    for (const { input, module } of accepted) {
      const label = graph.graph.modules[module]?.label ?? input.moduleId;
      const body = loggedBody(input);
      // The item parameters in force are stored with the event, so a replay applies exactly the same update.
      const item = items[label];
      if (item && input.kind !== "recommendation-followed") body.item = item;
      this.#log.append(input, label, graph.graph.version, request.nowMs, body);
      const event = learnerEventOf(graph, module, input.kind, input.correct, input.occurredAt);
      if (!event) continue;
      const params = paramsWith(event.itemKey, item);
      if (event.kind === "graded") {
        const predicted = predictCorrect(state, params, event, input.occurredAt);
        observations.push({ module: label, objectives: [...event.objectives], correct: event.correct === true, predicted });
      }
      applyEvent(state, params, modelGraph, event);
    }
    this.#learner.write(state);
    this.#outbox.add(request.graphUuid, observations);
    return state;
  }

  /**
   * A state computed under other model parameters (a recalibration was deployed since) is rebuilt
   * from the log once, with other requests of this registration held until it is done.
   */
  async #ensureStateMatchesParams(): Promise<void> {
    if (!this.#learner.stale()) return;
    await this.ctx.blockConcurrencyWhile(async () => {
      if (!this.#learner.stale()) return;
      const rebuilt = await this.#replay();
      this.#learner.write(rebuilt);
      this.#learner.adopt(rebuilt);
    });
  }

  #replay(): Promise<LearnerState> {
    const graphUuid = this.ctx.storage.kv.get<string>("graph_uuid");
    return replayLearnerState(this.#log, (version) => this.#graph(graphUuid ?? "", version));
  }

  async #graph(graphUuid: string, version: number): Promise<GraphIndex> {
    const graph = await loadRuntimeGraph(openDb(this.env.DB), graphUuid, version);
    if (!graph) throw new Error(`graph ${graphUuid}@${version} is missing`);
    return graph;
  }
}

/** JSON with object keys sorted, so equal states compare equal whatever order their keys were added in. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
