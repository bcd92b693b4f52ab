/**
 * How fast this learner learns compared with the population: a posterior over a grid of speed
 * multipliers, from every objective the learner has worked on (the evidence's likelihood under each
 * speed, episode.ts) and the population's spread of speeds as the prior (log-normal). A learner who
 * needed many opportunities elsewhere is slow, so many failures on one more objective are less
 * surprising: that is what keeps a slow learner from being called stuck.
 */
import { type EpisodeEnd, logEvidence } from "./episode";
import { type ObjectiveEvidence, worked } from "./evidence";

/** Speed multipliers considered (×/÷ 2.8 around the population's typical learner). */
export const SPEEDS = [0.35, 0.5, 0.71, 1, 1.41, 2, 2.83] as const;
const LOG_SPEEDS = SPEEDS.map(Math.log);

export interface SpeedPosterior {
  /** each touched objective's episode end under each grid speed */
  ends: Map<string, EpisodeEnd[]>;
  /** log prior + every objective's log-likelihood, per grid speed */
  logTotal: number[];
  /** normalized posterior weights over SPEEDS (all objectives) */
  weights: number[];
  /** posterior mean of log speed, and of its square */
  meanLog: number;
  meanLog2: number;
}

export function speedPosterior(
  evidence: Readonly<Record<string, ObjectiveEvidence>>,
  /** the objective's episode end under each grid speed (SPEEDS) */
  endsOf: (objective: string, e: ObjectiveEvidence) => EpisodeEnd[],
  spread: number,
): SpeedPosterior {
  const total = LOG_SPEEDS.map((l) => -(l * l) / (2 * spread * spread));
  const ends = new Map<string, EpisodeEnd[]>();
  for (const [objective, e] of Object.entries(evidence)) {
    if (!worked(e)) continue;
    const perSpeed = endsOf(objective, e);
    ends.set(objective, perSpeed);
    for (let i = 0; i < perSpeed.length; i++) total[i] = total[i]! + logEvidence(perSpeed[i]!);
  }
  const weights = normalize(total);
  let meanLog = 0;
  let meanLog2 = 0;
  for (let i = 0; i < SPEEDS.length; i++) {
    meanLog += weights[i]! * LOG_SPEEDS[i]!;
    meanLog2 += weights[i]! * LOG_SPEEDS[i]! ** 2;
  }
  return { ends, logTotal: total, weights, meanLog, meanLog2 };
}

/** Posterior weights over SPEEDS from every objective but `objective` (so its own evidence is not counted twice). */
export function weightsWithout(p: SpeedPosterior, objective: string): number[] {
  const own = p.ends.get(objective);
  if (!own) return p.weights;
  return normalize(p.logTotal.map((l, i) => l - logEvidence(own[i]!)));
}

/**
 * The weights conditioned on the slowest `tail` of their mass (0 < tail ≤ 1): the grid's speeds from
 * the slowest up until `tail` is reached, the last of them only in part, renormalized.
 */
export function slowTail(weights: readonly number[], tail: number): number[] {
  let left = tail;
  const out = weights.map((w) => {
    const take = Math.min(w, Math.max(0, left));
    left -= take;
    return take;
  });
  const z = out.reduce((s, x) => s + x, 0);
  return out.map((x) => x / z);
}

function normalize(logs: number[]): number[] {
  const m = Math.max(...logs);
  const w = logs.map((l) => Math.exp(l - m));
  const z = w.reduce((s, x) => s + x, 0);
  return w.map((x) => x / z);
}
