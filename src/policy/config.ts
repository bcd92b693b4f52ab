/**
 * The policy's decision levels, in one place. Each is a stated risk on the engine's posterior (the
 * learner's evidence read with the population's rates, src/tracing), not a constant fitted to one
 * world: docs/recommendation.md gives each level's measured error rates over the world family.
 * Changing any value changes MODEL_STATE_ID (src/objects/registration/model-state-store.ts): every
 * registration then rebuilds its state from its event log once, on its next use.
 */
export const POLICY = {
  /**
   * `ready` / `complete`: the posterior probability that every target is mastered reaches this level
   * (or the goal's min_predicted_mastery when that is higher). The model is not the world (a learner
   * just below mastery on a learning curve answers almost as one above it), so the measured error is
   * not 1 − this, and the level is set by it: over three sets of 30 family worlds the median
   * false-ready was 2.7–6.3% at 0.95, 0.0–5.4% at 0.97 and 0.0–2.7% at 0.98, the partner-sequenced
   * false-complete's 4.6–8.9%, 3.0–4.9% and 0.0%, with 92–100% of the partner-sequenced learners who
   * mastered the goal still reported complete at 0.98. At 0.99 the ready lag and the completions
   * cost more than the safety gained: 571 world-targets met against 581 at 0.98 (572 at 0.97, 557 at
   * 0.95; docs/recommendation-history.md, "The ready level at 0.98"). On two sets of 30 worlds no run
   * had tuned on, at 0.98, the medians: false-ready 2.9% and 2.6%, false-complete 2.9% and 1.3% (the
   * history's "Main's engine on 60 worlds no run had used").
   */
  readyLevel: 0.98,
  /**
   * An objective below the targets is settled (the policy builds on it and moves on) when it is known
   * with this probability. Lower moves on sooner (less redundant practice) and risks building on a gap
   * that a dependent's failures must then reveal.
   */
  moveOnLevel: 0.85,
  /**
   * `stuck` / `struggling`: the posterior probability that the learner cannot learn an objective the
   * goal needs (its prerequisites known, the learner's speed accounted for) reaches this level. Higher
   * than a miss costs: a teacher acts on the flag (0.9 and 0.95 measured alike over the family; 0.95
   * keeps a learner who is only slow from a flag: docs/recommendation-history.md "The stuck rule").
   */
  stuckLevel: 0.95,
  /**
   * The stuck level must also hold with the learner's speed conditioned on the slowest this share of
   * its posterior (from its other objectives): a one-sided 90% bound on how slow the learner is. A
   * learner slower than that is one the rest of its evidence makes unlikely, so a flag that needs it
   * slower is a flag on evidence, not on an optimistic reading of its speed.
   */
  stuckSlowTail: 0.1,
  /**
   * No `stuck` flag on an objective whose latest steps, read alone as an episode that began unknown,
   * say with this probability that the learner knows it (or part of it) now: the whole episode reads
   * a stall that a prerequisite learned late caused as blocked, and the right answers after it as
   * guesses (reading.ts `knowsLately`). The flag's own level: a claim at 0.95 that more work will not
   * help is withdrawn by one at 0.95 that it already did. At 0.5 a blocked learner's lucky runs took
   * the flag away and back (docs/recommendation-history.md, "A stall, then right answers").
   */
  knowsLatelyLevel: 0.95,
  /**
   * Target success probability of a practice item (focused practice: "useful difficulty"). The most
   * telling item instead (lowest guess + slip, as the other intents rank) met 570 world-targets against
   * 581 (docs/recommendation-history.md, "What the estimates cost today").
   */
  practiceSuccess: 0.65,
  /** Items remembered as recently answered (never recommended first again while remembered). */
  recentItems: 3,
  /** Maximum module_ids returned. */
  maxModules: 10,
  /** Cap of work_remaining (spec 2.5). */
  maxWorkRemaining: 30,
  /** Candidate atoms scored per objective (bounds the cost on objectives with very many atoms). */
  maxCandidates: 24,
};
