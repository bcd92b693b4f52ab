/** World parameter variants for robustness checks (each overrides SMALL/LARGE). */
import type { WorldParams } from "./world";

export const VARIANTS: Record<string, Partial<WorldParams>> = {
  base: {},
  /** noisier items: more guessing and slipping */
  noisy: { guess: [0.2, 0.35], slip: [0.08, 0.15] },
  /** cleaner items */
  clean: { guess: [0.05, 0.2], slip: [0.02, 0.08] },
  /** slow learners */
  slow: { learn: [0.08, 0.2] },
  /** fast learners */
  fast: { learn: [0.3, 0.5] },
  /** students who know little */
  novice: { known: [0.1, 0.4] },
  /** students who know most prerequisites */
  expert: { known: [0.7, 0.95] },
  /** no instructional atoms */
  noinstruction: { instructionShare: 0 },
  /** prior knowledge drawn over the whole graph's depth (the first simulator's definition): in large worlds most students know none of the scope */
  graphdepth: { knownOver: "graph" },
};
