import { describe, expect, it } from "vitest";
import {
  batchLength,
  MESSAGE_BYTES,
  outboxMessages,
  SEND_BATCH_BYTES,
  SEND_BATCH_MESSAGES,
  utf8Bytes,
} from "../../../src/objects/registration/outbox-messages";

const graph = "7a1f3c2e-0000-4000-8000-000000000000";

describe("outbox messages", () => {
  it("split by encoded size: every message stays under the limit and nothing is lost", () => {
    const objectives = Array.from({ length: 40 }, (_, i) => `lref-objective-with-a-long-name-é-${i}`);
    const observations = Array.from({ length: 500 }, (_, i) => ({ module: `mref-q${i}`, objectives, correct: i % 2 === 0, predicted: 0.5 }));
    const messages = outboxMessages(graph, observations);
    expect(messages.length).toBeGreaterThan(1);
    for (const m of messages) expect(utf8Bytes(m)).toBeLessThanOrEqual(MESSAGE_BYTES);
    const back = messages.flatMap((m) => JSON.parse(m).observations);
    expect(back).toEqual(observations);
  });

  it("an observation too large on its own is sent without its objective list", () => {
    const huge = {
      module: "mref-everything",
      objectives: Array.from({ length: 2000 }, (_, i) => `lref-${"x".repeat(60)}-${i}`),
      correct: true,
      predicted: 0.4,
    };
    const messages = outboxMessages(graph, [huge, { module: "mref-a", objectives: ["lref-a"], correct: false, predicted: 0.6 }]);
    for (const m of messages) expect(utf8Bytes(m)).toBeLessThanOrEqual(MESSAGE_BYTES);
    const back = messages.flatMap((m) => JSON.parse(m).observations);
    expect(back).toEqual([
      { ...huge, objectives: [] },
      { module: "mref-a", objectives: ["lref-a"], correct: false, predicted: 0.6 },
    ]);
  });

  it("no observations, no message", () => {
    expect(outboxMessages(graph, [])).toEqual([]);
  });
});

describe("batchLength: how many messages one queue batch takes", () => {
  it("at most SEND_BATCH_MESSAGES and SEND_BATCH_BYTES, at least one", () => {
    expect(batchLength(new Array(250).fill(10))).toBe(SEND_BATCH_MESSAGES);
    expect(batchLength([SEND_BATCH_BYTES - 5, 5, 1])).toBe(2);
    expect(batchLength([SEND_BATCH_BYTES + 1, 1])).toBe(1);
    expect(batchLength([])).toBe(0);
  });
});
