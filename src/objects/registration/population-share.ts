import type { TutorState } from "../../policy";
import { POPULATION_CADENCE, populationCadenceMs } from "../../reads/population-rates";
import { type Contributions, contribute, emptyContributions, type Prerequisites } from "../../tracing/contribute";
import type { PopulationRates } from "../../tracing/rates";
import { REREAD_LIMIT, rereadEvidence, rereadWaitMs } from "../../tracing/reread";
import { emptyDelta, type StatisticsDelta } from "../../tracing/statistics";

/**
 * How often a registration re-reads its changed evidence for the population statistics and releases
 * its held graded answers for item refinement (./outbox.ts): at most once per the graph's cadence
 * (`populationCadenceMs`: 5 s while the graph is young, 20 s after; coalesced off the response path,
 * by the alarm), so that the population's rates and item parameters stay inside the 60 s they may
 * lag (docs/api-conventions.md "Freshness"; src/reads/item-params.ts adds up the item side). The
 * cadence is the one of the rates read at the last contribution.
 */
const CONTRIBUTE_EVERY_KEY = "population_every_ms";

/**
 * An alarm that runs anyway (the projection's, ./pending-projection.ts) makes a contribution due
 * within this share of the cadence now: one alarm instead of two. Contributions stay at least 4/5 of
 * the cadence apart.
 */
const CONTRIBUTE_EARLY_SHARE = 0.2;

/**
 * The registration's share of its graph's population statistics (src/tracing/contribute.ts): whether
 * its evidence changed since it last contributed (which objectives, for the record), and what it contributed before (so it
 * sends differences and its latest reading replaces the previous one). Bookkeeping beside the
 * replayable state, in the object's key-value storage; what was contributed is also kept in memory
 * once committed (read once per instance, as the model state is: model-state-store.ts). After the
 * evidence last changed, the alarm re-reads it under newer rates for a while (`reread`,
 * src/tracing/reread.ts says why and how long).
 */
export class PopulationShare {
  readonly #kv: SyncKvStorage;
  /** the stored contributions, as last written (undefined: read them from storage) */
  #kept: Contributions | undefined;

  constructor(kv: SyncKvStorage) {
    this.#kv = kv;
  }

  /** Notes objectives whose evidence changed (inside the caller's transaction). */
  markChanged(objectives: Iterable<string>): void {
    const dirty = new Set(this.#kv.get<string[]>("population_dirty") ?? []);
    const before = dirty.size;
    for (const k of objectives) dirty.add(k);
    if (dirty.size !== before) this.#kv.put("population_dirty", [...dirty]);
  }

  pending(): boolean {
    return (this.#kv.get<string[]>("population_dirty")?.length ?? 0) > 0;
  }

  /** Whether an alarm running at `nowMs` contributes: due, or due within CONTRIBUTE_EARLY_SHARE of the cadence. */
  dueBy(nowMs: number): boolean {
    return nowMs >= this.dueAt() - CONTRIBUTE_EARLY_SHARE * this.#everyMs();
  }

  /** When the next contribution is due (ms); an alarm is set for it while evidence is pending. */
  dueAt(): number {
    return (this.#kv.get<number>("population_contributed_at") ?? 0) + this.#everyMs();
  }

  /** The cadence of the rates read at the last contribution (a registration that contributed before the cadence was recorded: the settled one). */
  #everyMs(): number {
    return this.#kv.get<number>(CONTRIBUTE_EVERY_KEY) ?? POPULATION_CADENCE.settledMs;
  }

  /**
   * Re-reads every objective the learner worked on under the current rates (not only the changed
   * ones: a reading under older rates is an older E-step, and EM converges only if it is redone) and
   * returns the delta to send; records the new contributions (inside the caller's transaction, with
   * the outbox write; the caller calls `discard` if that transaction fails: the kept ones were
   * updated in place).
   */
  contribute(tutor: TutorState, population: PopulationRates, prerequisites: Prerequisites, nowMs: number): StatisticsDelta {
    const contributions = this.#contributions();
    const delta = emptyDelta();
    contribute(tutor.obj, Object.keys(tutor.obj), population, prerequisites, contributions, delta);
    this.#keep(contributions);
    this.#kv.delete("population_dirty");
    this.#kv.put("population_contributed_at", nowMs);
    this.#kv.put(CONTRIBUTE_EVERY_KEY, populationCadenceMs(population));
    this.#kv.put("population_read_version", population.version);
    this.#kv.put("population_rereads", 0);
    return delta;
  }

  /**
   * When the evidence, unchanged since it was last read, is next checked for a re-reading under the
   * graph's current rates (src/tracing/reread.ts); undefined: while evidence waits for its own
   * contribution, before any, and after REREAD_LIMIT checks.
   */
  rereadDueAt(): number | undefined {
    const checks = this.#kv.get<number>("population_rereads") ?? 0;
    if (this.pending() || checks >= REREAD_LIMIT) return undefined;
    const at = this.#kv.get<number>("population_contributed_at");
    return at === undefined ? undefined : at + rereadWaitMs(checks);
  }

  /** Whether an alarm running at `nowMs` makes a re-reading check. */
  rereadDue(nowMs: number): boolean {
    const at = this.rereadDueAt();
    return at !== undefined && nowMs >= at;
  }

  /**
   * One re-reading check, inside the caller's transaction (as `contribute`): counted; if the rates'
   * version moved since the last reading, the whole evidence (`tutor`, asked only then) is re-read
   * under `population` and the delta to send returned. Undefined when there is none: the same
   * version, or a re-reading that moved nothing (its version is recorded, the earlier reading kept).
   */
  reread(tutor: () => TutorState, population: PopulationRates, prerequisites: Prerequisites, nowMs: number): StatisticsDelta | undefined {
    this.#kv.put("population_contributed_at", nowMs);
    this.#kv.put("population_rereads", (this.#kv.get<number>("population_rereads") ?? 0) + 1);
    if (population.version === this.#kv.get<string>("population_read_version")) return undefined;
    this.#kv.put("population_read_version", population.version);
    const read = rereadEvidence(tutor().obj, population, prerequisites, this.#contributions());
    if (!read) return undefined;
    this.#keep(read.contributions);
    return read.delta;
  }

  /** No more re-reading checks until the evidence changes (nothing to read them with). */
  stopRereading(): void {
    this.#kv.put("population_rereads", REREAD_LIMIT);
  }

  #contributions(): Contributions {
    return this.#kept ?? this.#kv.get<Contributions>("population_contributions") ?? emptyContributions();
  }

  #keep(contributions: Contributions): void {
    this.#kv.put("population_contributions", contributions);
    this.#kept = contributions;
  }

  /** Forgets the kept contributions after a failed transaction (as ModelStateStore.discard): the next contribution reads the stored, rolled-back ones. */
  discard(): void {
    this.#kept = undefined;
  }
}

/** Objectives whose evidence an update changed (a step was added since). */
export function changedEvidence(before: TutorState, after: TutorState): string[] {
  return Object.keys(after.obj).filter((k) => after.obj[k]?.last !== before.obj[k]?.last);
}
