import { DurableObject } from "cloudflare:workers";
import { type ActivityEvent, summarizeActivity, summaryCovers } from "../../analytics";
import { openDb } from "../../db/client";
import type { Env } from "../../env";
import type { GraphIndex } from "../../graphs/runtime-graph";
import { canonicalJson } from "../../lib/canonical-json";
import { type ItemEntry, type LearnerState, predictCorrect } from "../../model";
import { applyTutoredEvent, type GoalStatus, goalStatus, recommend } from "../../policy";
import { modelGraphFor } from "../../policy/model-graph";
import type { ItemObservation, ProjectionMessage } from "../../queues/messages";
import { unknownGoals } from "../../reads/live-goals";
import { AlarmSchedule } from "./alarm-schedule";
import { AnalyticsStore, changedObjectives, publisherIdentity } from "./analytics-store";
import { comparedBefore } from "./compared-before";
import { D1Reads } from "./d1-reads";
import { ErasedFlag } from "./erased-flag";
import { ERASED, type ErasedCounts, RegistrationErased } from "./erasure";
import { EventLog, learnerEventOf, loggedBody } from "./event-log";
import { type ExportPage, exportPage } from "./export";
import { fingerprintOf, IdempotencyRecords } from "./idempotency";
import { activeTimeValues, expectedScoreValues, metricContext, proficiencyValues, readinessValues, type WatchResult, watchResults } from "./metrics";
import { type ModelState, ModelStateStore, paramsWith, replayModelState } from "./model-state-store";
import { OUTBOX_RETRY_MS, Outbox, type SendResult } from "./outbox";
import { PendingProjection, PROJECTION_DELAY_MS } from "./pending-projection";
import { changedEvidence, PopulationShare } from "./population-share";
import { sendProjections } from "./projection-send";
import { preparedGoalFor, RecommendationCache } from "./recommendations";
import { type ResolvedEvent, resolveModules } from "./resolve-modules";
import { pruneLog, replayStart } from "./retention";
import type {
  AuditPage,
  AuditState,
  GoalSpec,
  IngestOutcome,
  IngestRequest,
  MetricGoal,
  MetricsRequest,
  MetricValue,
  RecommendOutcome,
  RecommendRequest,
} from "./rpc";
import { migrate } from "./schema";
import { StatementRecords } from "./statements";
import { StatusMemo } from "./status-memo";
import { workOnGoal } from "./work-on-goal";

/**
 * One object per registration. It serializes every event post of the registration and keeps, in
 * its SQLite storage, the append-only event log (./event-log.ts), the learner model's and the
 * policy's state (./model-state-store.ts), the goal focus, the recommendations and their ids
 * (./recommendations.ts), the Idempotency-Key records (./idempotency.ts) and the outbox of model
 * updates (./outbox.ts). This class only orchestrates them; the policy itself is pure (src/policy).
 */
export class RegistrationObject extends DurableObject<Env> {
  readonly #log: EventLog;
  readonly #idempotency: IdempotencyRecords;
  readonly #model: ModelStateStore;
  readonly #recommendations: RecommendationCache;
  readonly #outbox: Outbox;
  readonly #analytics: AnalyticsStore;
  readonly #statements: StatementRecords;
  readonly #population: PopulationShare;
  readonly #projection: PendingProjection;
  readonly #alarm: AlarmSchedule;
  readonly #statuses = new StatusMemo();
  readonly #reads: D1Reads;
  readonly #erased: ErasedFlag;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#erased = new ErasedFlag(ctx.storage);
    if (!this.#erased.get()) migrate(ctx.storage);
    this.#log = new EventLog(ctx.storage.sql);
    this.#idempotency = new IdempotencyRecords(ctx.storage.sql);
    this.#model = new ModelStateStore(ctx.storage.kv);
    this.#recommendations = new RecommendationCache(ctx.storage.kv);
    this.#outbox = new Outbox(ctx.storage.sql);
    this.#analytics = new AnalyticsStore(ctx.storage.kv);
    this.#statements = new StatementRecords(ctx.storage.sql);
    this.#population = new PopulationShare(ctx.storage.kv);
    this.#projection = new PendingProjection(ctx.storage.kv);
    this.#alarm = new AlarmSchedule(ctx.storage);
    this.#reads = new D1Reads(env.DB);
  }

  /** Validates and stores a set of events atomically (all or nothing), then applies them to the learner state. */
  async ingest(request: IngestRequest): Promise<IngestOutcome> {
    if (this.#erased.get()) return ERASED;
    const key = request.idempotencyKey;
    const fingerprint = key ? await fingerprintOf(request) : "";
    const mark = this.#idempotency.mark();
    const earlier = key ? this.#idempotency.outcomeFor(key, fingerprint, request.nowMs) : undefined;
    if (earlier) return earlier;
    // Only a new request is checked against current data (goals, modules): a stored key was answered above.
    const db = openDb(this.env.DB);
    const goalProblems = await unknownGoals(db, request.learningInstanceId, request.goals);
    if (this.#erased.get()) return ERASED; // erased during the await: refused, never stored
    await this.#ensureStateMatchesParams();
    const graph = await this.#reads.graph(request.graphUuid, request.graphVersion);
    const items = await this.#reads.items(request.graphUuid, request.nowMs);
    // Everything below is synchronous: no other request of this registration can interleave. The
    // awaits above let another request in (an erasure too), so that and the idempotency key are looked up again.
    if (this.#erased.get()) return ERASED;
    const raced = key ? this.#idempotency.outcomeSince(mark, key, fingerprint, request.nowMs) : undefined;
    if (raced) return raced;
    // xAPI statements already stored are skipped; a stored id with other content refuses the request.
    const statements = this.#statements.screen(request.events);
    const resolved = resolveModules(graph, statements.fresh, request.ignoreInvalidModuleIds);
    const outcome: IngestOutcome =
      goalProblems.length > 0
        ? { ok: false, status: 422, message: "Unknown goal id(s).", details: goalProblems, replayed: false }
        : statements.conflicts.length > 0
          ? { ok: false, status: 409, message: "A statement id was already used for a different statement.", details: statements.conflicts, replayed: false }
          : resolved.details.length > 0
            ? {
                ok: false,
                status: 422,
                message: "Unrecognized module id(s): events are accepted on atoms of the learning instance's graph only.",
                details: resolved.details,
                replayed: false,
              }
            : { ok: true, stored: resolved.accepted.length, ignored: request.events.length - resolved.accepted.length, replayed: false };

    try {
      this.ctx.storage.transactionSync(() => {
        if (outcome.ok) {
          this.#append(request, resolved.accepted, graph, items);
          this.#statements.record(
            resolved.accepted.map((r) => r.input),
            request.nowMs,
          );
        }
        if (key) this.#idempotency.record(key, outcome, fingerprint, request.nowMs);
      });
    } catch (error) {
      // The events were applied to the cached state in place: a failed transaction leaves the
      // stored state, rolled back, to be read again.
      this.#model.discard();
      throw error;
    }
    if (outcome.ok) await this.#armOutbox(PROJECTION_DELAY_MS);
    return outcome;
  }

  /**
   * The learner state, rebuilt from the log first if it was computed under other model parameters:
   * a copy, as an RPC caller gets it (events update the object's own in place).
   */
  async learnerState(): Promise<LearnerState> {
    await this.#ensureStateMatchesParams();
    return structuredClone(this.#model.current().learner);
  }

  /**
   * The recommendation for an assigned goal (the caller checked the assignment). Requesting it
   * focuses the goal (not an event: the recommendation_id stays). The recommendation and its id are
   * kept until an event changes the learner state.
   */
  async recommend(request: RecommendRequest): Promise<RecommendOutcome> {
    await this.#ensureStateMatchesParams();
    const { goal, graph } = await this.#preparedGoal(request.goal);
    if (this.ctx.storage.kv.get<string>("focus_goal_id") !== request.goal.id) this.ctx.storage.kv.put("focus_goal_id", request.goal.id);
    const population = await this.#reads.rates(request.goal.graphUuid, request.nowMs);
    const { learner, tutor } = this.#model.current();
    const { id, recommendation } = this.#recommendations.get(request.goal, learner.seq, population.version, request.continuedRecommendations, () =>
      recommend(goal, tutor, population, {
        nowMs: request.nowMs,
        continuedRecommendations: request.continuedRecommendations,
        workOnGoal: workOnGoal(this.#log, graph, request.goal, goal),
      }),
    );
    return { id, ...recommendation };
  }

  /**
   * Goal status and progress (spec 2.5) for each goal, by the same rules as the recommendation's
   * ready and stuck. `maxAgeMs`: a class-level read may be answered a status computed that long ago
   * for the same learner state and rates (./status-memo.ts); a registration's own read asks 0.
   */
  async statuses(goals: GoalSpec[], nowMs: number, maxAgeMs = 0): Promise<GoalStatus[]> {
    await this.#ensureStateMatchesParams();
    const out: GoalStatus[] = [];
    for (const spec of goals) {
      const { goal, graph } = await this.#preparedGoal(spec);
      const population = await this.#reads.rates(spec.graphUuid, nowMs);
      const { learner, tutor } = this.#model.current();
      out.push(
        this.#statuses.get(spec, learner.seq, population.version, nowMs, maxAgeMs, () =>
          goalStatus(goal, tutor, population, { nowMs, workOnGoal: workOnGoal(this.#log, graph, spec, goal) }),
        ),
      );
    }
    return out;
  }

  /** One metrics row (docs/analytics.md "Metrics rows"): a value per column, from this registration's state. */
  async metricsRow(request: MetricsRequest): Promise<MetricValue[]> {
    await this.#ensureStateMatchesParams();
    if (request.metric === "active-time") {
      const { firstDay, lastDay, utcOffsetMinutes } = request;
      // Days older than the summary's retention are answered from the log (rare).
      const stored = this.#analytics.activity();
      const summary = summaryCovers(stored, firstDay, utcOffsetMinutes) ? stored : summarizeActivity(this.#log.interactions());
      return activeTimeValues(summary, firstDay, lastDay, utcOffsetMinutes);
    }
    const goals = await Promise.all(request.goals.map(async (g) => ({ prepared: (await this.#preparedGoal(g.spec)).goal, request: g })));
    if (request.metric === "readiness-forecast") {
      const population = await this.#reads.rates(request.graph.uuid, request.nowMs);
      return readinessValues(this.#model.current(), this.#analytics.activity(), goals, population, request.nowMs);
    }
    const graph = await this.#reads.graph(request.graph.uuid, request.graph.version);
    const ctx = metricContext(graph, await this.#reads.items(request.graph.uuid, request.nowMs), request.nowMs);
    const prepared = goals.map((g) => g.prepared);
    // The state as it is now, after the awaits (events update it in place).
    const state = this.#model.current();
    if (request.metric === "proficiency") return proficiencyValues(state, prepared, request.objectiveIds, ctx);
    return expectedScoreValues(state, prepared, ctx);
  }

  /** Learners-to-watch flags of this registration for each goal (same rules as status and progress and the recommendation's stuck). */
  async watch(registrationId: string, goals: MetricGoal[], nowMs: number): Promise<WatchResult[]> {
    await this.#ensureStateMatchesParams();
    const prepared = await Promise.all(
      goals.map(async (g) => {
        const { goal, graph } = await this.#preparedGoal(g.spec);
        return { prepared: goal, request: g, workOnGoal: workOnGoal(this.#log, graph, g.spec, goal) };
      }),
    );
    const graphUuid = goals[0]?.spec.graphUuid;
    const population = graphUuid ? await this.#reads.rates(graphUuid, nowMs) : undefined;
    if (!population) return [];
    return watchResults(registrationId, this.#model.current(), this.#analytics.activity(), prepared, population, nowMs);
  }

  /**
   * Operator audit (docs/security.md "Operator diagnostics", read-only): a page of the stored events,
   * so an operator can check what a registration holds (the soak test checks exactly-once with it).
   */
  auditEvents(afterSeq: number, limit: number): AuditPage {
    if (this.#erased.get()) throw new RegistrationErased();
    return this.#log.auditPage(afterSeq, limit);
  }

  /** Operator audit: whether the kept learner and tutor states equal their replay from the event log. */
  async auditState(): Promise<AuditState> {
    await this.#ensureStateMatchesParams();
    const kept = canonicalJson(this.#model.current());
    const replayed = canonicalJson(await this.#replay());
    return { event_count: this.#log.count(), state_matches_replay: kept === replayed };
  }

  /** Data lifecycle (docs/privacy.md): all storage deleted, a tombstone left (./erasure.ts); pages of events for an export (./export.ts). */
  erase(): Promise<ErasedCounts> {
    return this.#erased.erase();
  }
  exportEvents(afterSeq: number, limit: number): ExportPage {
    return exportPage(this.ctx.storage, afterSeq, limit);
  }

  /** Data lifecycle: removes the events received before `cutoffMs`, keeping the state they led to (./retention.ts). */
  async applyRetention(cutoffMs: number): Promise<number> {
    if (this.#erased.get()) return 0;
    await this.#ensureStateMatchesParams();
    return pruneLog(this.ctx.storage, cutoffMs, (version) => this.#reads.graph(this.ctx.storage.kv.get<string>("graph_uuid") ?? "", version));
  }

  /** Data lifecycle: publishes all beliefs again (an instance erasure removed the account's projection, docs/privacy.md). */
  async republishProjection(): Promise<void> {
    await this.#ensureStateMatchesParams();
    this.ctx.storage.transactionSync(() => this.#publishAll());
    await this.#armOutbox();
  }

  /**
   * Off the response path: contributes the changed evidence to the population statistics and
   * releases the graded answers held for item refinement (both at most once per the graph's cadence: population-share.ts),
   * or, the evidence unchanged, re-reads it when the rates moved (1, 3, 7, 15 and 31 minutes after the change:
   * src/tracing/reread.ts); publishes the projection, and sends the outbox to its queues; a failed
   * send is retried.
   */
  override async alarm(): Promise<void> {
    this.#alarm.fired();
    if (this.#erased.get()) return;
    this.#outbox.deleteSent();
    if (this.#modelUpdatesPending() && this.#population.dueBy(Date.now())) await this.#contribute();
    else if (this.#population.rereadDue(Date.now())) await this.#reread();
    if (this.#erased.get()) return; // erased during the reads: nothing is sent or re-armed
    const publication = this.#projection.pending() ? await this.#takeProjection() : undefined;
    // Evidence left for a later contribution re-arms the alarm now, with this run's writes: they and
    // the alarm are then one storage commit before the sends, not two (docs/performance.md, eighth
    // pass). An event stored during the sends arms it for its own projection, earlier if need be.
    if (this.#modelUpdatesPending()) await this.#alarm.noLaterThan(Math.max(Date.now(), this.#population.dueAt()));
    else {
      const rereadAt = this.#population.rereadDueAt();
      if (rereadAt !== undefined) await this.#alarm.noLaterThan(rereadAt);
    }
    const published = publication ? await this.#sendProjection(publication) : "empty";
    const registrationId = this.ctx.storage.kv.get<string>("registration_id") ?? this.ctx.id.toString();
    const sent = await this.#outbox.sendNext({ modelUpdates: this.env.MODEL_UPDATES, projections: this.env.PROJECTIONS }, registrationId);
    if (sent === "failed" || published === "failed") await this.#alarm.noLaterThan(Date.now() + OUTBOX_RETRY_MS);
    else if (sent === "more") await this.#alarm.noLaterThan(Date.now());
  }

  /** Changed evidence not yet contributed, or graded answers not yet released to the model-updates queue. */
  #modelUpdatesPending(): boolean {
    return this.#population.pending() || this.#outbox.holdsObservations();
  }

  /** The registration's changed evidence, re-read under the graph's current rates, and the held graded answers, into the outbox (src/tracing/contribute.ts). */
  async #contribute(): Promise<void> {
    const reading = await this.#readingContext();
    if (!reading) return;
    const { graphUuid, population, prerequisites, nowMs } = reading;
    try {
      this.ctx.storage.transactionSync(() => {
        if (this.#erased.get()) return;
        this.#outbox.releaseObservations(graphUuid);
        if (!this.#population.pending()) return;
        const delta = this.#population.contribute(this.#model.current().tutor, population, prerequisites, nowMs);
        this.#outbox.addPopulation(graphUuid, delta);
      });
    } catch (error) {
      this.#population.discard();
      throw error;
    }
  }

  /** The unchanged evidence re-read under the graph's newer rates, its delta into the outbox (src/tracing/reread.ts). */
  async #reread(): Promise<void> {
    const reading = await this.#readingContext();
    if (!reading) return this.#population.stopRereading();
    const { graphUuid, population, prerequisites, nowMs } = reading;
    try {
      this.ctx.storage.transactionSync(() => {
        // (an event during the reads: its own contribution comes first)
        if (this.#erased.get() || this.#population.pending()) return;
        const delta = this.#population.reread(() => this.#model.current().tutor, population, prerequisites, nowMs);
        if (delta) this.#outbox.addPopulation(graphUuid, delta);
      });
    } catch (error) {
      this.#population.discard();
      throw error;
    }
  }

  /** What reading the evidence needs: the graph's current rates and prerequisites (undefined before any event). */
  async #readingContext() {
    await this.#ensureStateMatchesParams();
    const kv = this.ctx.storage.kv;
    const graphUuid = kv.get<string>("graph_uuid");
    if (!graphUuid) return undefined;
    const nowMs = Date.now();
    const graph = modelGraphFor(await this.#reads.graph(graphUuid, kv.get<number>("graph_version") ?? 1));
    const population = await this.#reads.rates(graphUuid, nowMs);
    return { graphUuid, population, prerequisites: (k: string) => graph.prerequisites[k] ?? [], nowMs };
  }

  /**
   * Writes the events, the focus and the updated model state (inside the caller's transaction). The
   * events are applied to the cached state in place (the caller discards it if the transaction fails).
   */
  #append(request: IngestRequest, accepted: ResolvedEvent[], graph: GraphIndex, items: Record<string, ItemEntry>): void {
    const { kv } = this.ctx.storage;
    // Constants of the registration: written once, not on every post. A registration whose state
    // predates them (or is new) publishes a full snapshot of its beliefs, then deltas.
    const firstPublish = kv.get("account_id") === undefined;
    if (firstPublish) {
      kv.put("registration_id", request.registrationId);
      kv.put("graph_uuid", request.graphUuid);
      kv.put("account_id", request.accountId);
      kv.put("registration_created_at", request.registrationCreatedAt);
    }
    if (kv.get("graph_version") !== request.graphVersion) kv.put("graph_version", request.graphVersion);
    if (request.focusGoalId) {
      this.#log.appendFocus(request.focusGoalId, request.nowMs);
      kv.put("focus_goal_id", request.focusGoalId);
    }
    const state = this.#model.current();
    const before = comparedBefore(state);
    const { logged, observations, interactions } = applyEvents(state, accepted, graph, items);
    this.#log.appendAll(logged, graph.graph.version, request.nowMs);
    this.#model.write(state);
    this.#population.markChanged(changedEvidence(before.tutor, state.tutor));
    this.#outbox.holdObservations(observations);
    if (interactions.length) {
      this.#analytics.record(observations, interactions, () => this.#log.interactions());
      this.#projection.mark(firstPublish ? "all" : changedObjectives(before.beliefs, state.learner));
    }
  }

  /**
   * A state computed under other model parameters (a recalibration was deployed since) is rebuilt
   * from the log once, with other requests of this registration held until it is done.
   */
  async #ensureStateMatchesParams(): Promise<void> {
    if (this.#erased.get()) throw new RegistrationErased();
    if (!this.#model.stale()) return;
    await this.ctx.blockConcurrencyWhile(async () => {
      if (!this.#model.stale()) return;
      const rebuilt = await this.#replay();
      this.ctx.storage.transactionSync(() => {
        this.#model.write(rebuilt);
        this.#publishAll(); // every belief may have moved
      });
      this.#model.adopt(rebuilt);
      await this.#armOutbox();
    });
  }

  /** A full snapshot of the beliefs is due (inside the caller's transaction), once the registration's identity is known. */
  #publishAll(): void {
    if (publisherIdentity(this.ctx.storage.kv).accountId) this.#projection.mark("all");
  }

  /** The beliefs changed since the last publication, as they are now: one projection for all the events since (./pending-projection.ts), recorded as being sent. */
  async #takeProjection(): Promise<ProjectionMessage[]> {
    await this.#ensureStateMatchesParams();
    const identity = publisherIdentity(this.ctx.storage.kv);
    let messages: ProjectionMessage[] = [];
    this.ctx.storage.transactionSync(() => {
      const pending = this.#projection.take();
      if (pending === undefined || !identity.accountId) return;
      const objectives = pending === "all" ? undefined : pending;
      messages = this.#analytics.projection(identity, this.#model.current().learner, this.#analytics.published(), objectives);
    });
    return messages;
  }

  /** Sends a publication to the projections queue; one that did not reach it is published again with the next. */
  async #sendProjection(messages: ProjectionMessage[]): Promise<SendResult> {
    const sent = messages.length ? await sendProjections(this.env.PROJECTIONS, messages) : "empty";
    if (sent === "empty") this.#projection.sent();
    return sent;
  }

  #replay(): Promise<ModelState> {
    const graphUuid = this.ctx.storage.kv.get<string>("graph_uuid");
    return replayModelState(this.#log, (version) => this.#reads.graph(graphUuid ?? "", version), replayStart(this.ctx.storage.kv));
  }

  /** The outbox is sent by the alarm, off the response path, within `delayMs` (earlier if the alarm is due sooner); it retries until the queue takes it. */
  #armOutbox(delayMs = 0): Promise<void> {
    return this.#alarm.noLaterThan(Date.now() + delayMs);
  }

  async #preparedGoal(spec: GoalSpec) {
    const graph = await this.#reads.graph(spec.graphUuid, spec.graphVersion);
    return { goal: preparedGoalFor(spec, graph), graph };
  }
}

/**
 * Applies a request's accepted events to the learner and tutor state in place, in order, and returns
 * their log rows (each with the item parameters in force, so a replay applies exactly the same
 * update), the graded answers' observations for item refinement and the interactions for the activity summary.
 */
function applyEvents(state: ModelState, accepted: ResolvedEvent[], graph: GraphIndex, items: Record<string, ItemEntry>) {
  const modelGraph = modelGraphFor(graph);
  const observations: ItemObservation[] = [];
  const interactions: ActivityEvent[] = [];
  const logged: Parameters<EventLog["appendAll"]>[0] = [];
  for (const { input, module } of accepted) {
    const label = graph.graph.modules[module]?.label ?? input.moduleId;
    const body = loggedBody(input);
    const item = items[label];
    if (item && input.kind !== "recommendation-followed") body.item = item;
    logged.push({ input, moduleLabel: label, body });
    const event = learnerEventOf(graph, module, input.kind, input.correct, input.occurredAt);
    if (!event) continue;
    interactions.push({ endMs: input.occurredAt, durationMs: input.durationMs, graded: event.kind === "graded" });
    const params = paramsWith(event.itemKey, item);
    if (event.kind === "graded") {
      const predicted = predictCorrect(state.learner, params, event, input.occurredAt);
      observations.push({ module: label, objectives: [...event.objectives], correct: event.correct === true, predicted });
    }
    applyTutoredEvent(state.learner, state.tutor, params, modelGraph, event);
  }
  return { logged, observations, interactions };
}
