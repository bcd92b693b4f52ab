import { goalScopeInput, resolveGoalScope, scopeLabels } from "../../graphs/resolve-goal-scope";
import type { GraphIndex } from "../../graphs/runtime-graph";
import { type PreparedGoal, prepareGoal, type Recommendation } from "../../policy";
import { type GoalSpec, goalSpecKey, goalVersionKey } from "./rpc";

/** A goal's recommendation as last computed, and the learner-state version it was computed for. */
interface CachedRecommendation {
  id: number;
  /** learner state `seq` (events applied) it was computed for */
  seq: number;
  /** the goal and graph versions and the assignment it was computed for (goalSpecKey) */
  goalKey: string;
  /** the population rates' version it was computed with (src/reads/population-rates.ts): with the log, what reproduces it */
  ratesVersion: string;
  /** module_ids etc. without and with continued recommendations, computed when first asked */
  plain?: Recommendation;
  continued?: Recommendation;
}

/**
 * The registration's recommendations, one per goal, kept in its key-value storage: the same
 * recommendation and recommendation_id are returned until an event changes the learner state (or
 * the goal changes); then a new one is computed under a new id.
 */
export class RecommendationCache {
  readonly #kv: SyncKvStorage;

  constructor(kv: SyncKvStorage) {
    this.#kv = kv;
  }

  /**
   * The recommendation for the goal at learner-state version `seq`, computed by `compute` only when
   * the stored one is for another version (or does not exist yet in the asked variant). New rates
   * alone do not replace a recommendation: the next event does.
   */
  get(goal: GoalSpec, seq: number, ratesVersion: string, continued: boolean, compute: () => Recommendation): { id: number; recommendation: Recommendation } {
    const key = `recommendation:${goal.id}`;
    const goalKey = goalSpecKey(goal);
    let entry = this.#kv.get<CachedRecommendation>(key);
    if (!entry || entry.seq !== seq || entry.goalKey !== goalKey) entry = { id: newRecommendationId(entry?.id), seq, goalKey, ratesVersion };
    const variant = continued ? "continued" : "plain";
    let recommendation = entry[variant];
    if (!recommendation) {
      recommendation = compute();
      entry[variant] = recommendation;
      this.#kv.put(key, entry);
    }
    return { id: entry.id, recommendation };
  }
}

/** A new recommendation_id: a random positive integer below 2^53 (a JSON-safe long), never the previous one. */
function newRecommendationId(previous: number | undefined): number {
  for (;;) {
    const [hi = 0, lo = 0] = crypto.getRandomValues(new Uint32Array(2));
    const id = (hi & 0x1fffff) * 2 ** 32 + lo;
    if (id > 0 && id !== previous) return id;
  }
}

const PREPARED_MAX = 64;
const prepared = new Map<string, PreparedGoal>();

/** The goal compiled against its graph version, once per (goal version, graph version) per isolate (most recent 64 kept). */
export function preparedGoalFor(goal: GoalSpec, graph: GraphIndex): PreparedGoal {
  // (not goalSpecKey: a prepared goal is the same whoever it was assigned to, and when)
  const key = goalVersionKey(goal);
  let hit = prepared.get(key);
  if (hit) {
    prepared.delete(key);
    prepared.set(key, hit);
    return hit;
  }
  const scope = resolveGoalScope(graph, goalScopeInput(goal.body));
  // Goals are checked against their graph when written, and graph updates are additive: a goal that
  // no longer resolves means a broken invariant, not bad input.
  if (!scope.ok) throw new Error(`goal ${goal.id} does not resolve against graph ${goal.graphUuid}@${goal.graphVersion}`);
  hit = prepareGoal(goal.body, scopeLabels(graph, scope.scope), graph);
  prepared.set(key, hit);
  if (prepared.size > PREPARED_MAX) prepared.delete(prepared.keys().next().value as string);
  return hit;
}
