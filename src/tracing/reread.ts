/**
 * Re-reading a registration's evidence when the rates moved and the evidence did not. A reading
 * made under older rates is an older E-step of EM (statistics.ts), and a learner who has stopped
 * answering would otherwise keep the reading it was given then: on a new graph, the one made under
 * the priors in the class's first minutes. Measured: after a class of 40 on a family world where
 * most learners knew most of the graph, EM redone on the class's final evidence brought an
 * objective's guess from the class's 0.45 to 0.12 (truth 0.10), from there and from the truth alike
 * (docs/recommendation-history.md, "The first rounds of a class"). So after its evidence last changed, a
 * registration checks REREAD_LIMIT times, the first REREAD_EVERY_MS later and each wait twice the one
 * before (1, 3, 7, 15 and 31 minutes after the change), whether the rates' version moved since its
 * last reading, and if so re-reads it; a re-reading that moves no count by CONVERGED is neither sent
 * nor kept (the checks go on: a class may still move the rates later). The waits grow because the
 * rates move most in a class's first minutes, and because every re-reading that is sent moves the
 * graph's version for every other registration: checked every minute, a class's idle registrations
 * re-read one another's re-readings for half an hour (measured: 1,200 idle registrations, every
 * check a re-reading sent, 15-21% of a core; docs/performance.md "Re-reading checks").
 */
import { type Contributions, contribute, type Prerequisites } from "./contribute";
import type { ObjectiveEvidence } from "./evidence";
import type { PopulationRates } from "./rates";
import { emptyDelta, type StatisticsDelta } from "./statistics";

/** The first check's wait: about as often as the graph's rates can change (they are at most 60 s behind: docs/api-conventions.md "Freshness"). */
export const REREAD_EVERY_MS = 60_000;

/** Checks after the evidence last changed (the last one half an hour after the change). */
export const REREAD_LIMIT = 5;

/** The wait before check n (0-based) after the previous one (or after the contribution, for the first): doubling from REREAD_EVERY_MS. */
export function rereadWaitMs(n: number): number {
  return REREAD_EVERY_MS * 2 ** n;
}

/** A re-reading whose every count moved by less than this (expected answers, opportunities or learners) has converged. */
const CONVERGED = 0.01;

/**
 * The whole evidence re-read under `population`, from what was contributed before (`kept`, not
 * changed): the new contributions and the delta to send, or undefined when the re-reading moved
 * nothing worth sending (converged).
 */
export function rereadEvidence(
  evidence: Readonly<Record<string, ObjectiveEvidence>>,
  population: PopulationRates,
  prerequisites: Prerequisites,
  kept: Contributions,
): { contributions: Contributions; delta: StatisticsDelta } | undefined {
  const contributions = structuredClone(kept);
  const delta = emptyDelta();
  contribute(evidence, Object.keys(evidence), population, prerequisites, contributions, delta);
  return converged(delta) ? undefined : { contributions, delta };
}

/** Whether a re-reading's delta moves nothing worth sending. */
function converged(delta: StatisticsDelta): boolean {
  const small = (x: number) => Math.abs(x) < CONVERGED;
  // (every count of an item; its objective's label is not one)
  for (const c of Object.values(delta.items)) if (!Object.values(c).every((x) => typeof x !== "number" || small(x))) return false;
  for (const c of Object.values(delta.objectives)) if (!Object.values(c).every(small)) return false;
  return small(delta.speed.learners) && small(delta.speed.logSquares);
}
