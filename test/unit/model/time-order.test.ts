import { describe, expect, it } from "vitest";
import { applyGraded, initialLearnerState } from "../../../src/model";
import { SERVICE_PARAMS } from "../../../src/model/service-params";

describe("the model's clock", () => {
  it("never moves back: a late, older event does not make the next event forget the same interval twice", () => {
    const day = 86_400_000;
    const item = { itemKey: "mref-q", objectives: ["lref-x"] };
    const inOrder = initialLearnerState(SERVICE_PARAMS);
    applyGraded(inOrder, SERVICE_PARAMS, undefined, { ...item, correct: true, timeMs: 10 * day });
    const late = structuredClone(inOrder);
    applyGraded(late, SERVICE_PARAMS, undefined, { ...item, correct: true, timeMs: 5 * day });
    expect(late.objectives["lref-x"]?.t).toBe(10 * day);
    expect(late.global.t).toBe(10 * day);
  });
});
