import { describe, expect, it } from "vitest";
import {
  batchLength,
  heldMessages,
  MESSAGE_BYTES,
  outboxMessages,
  populationMessages,
  SEND_BATCH_BYTES,
  SEND_BATCH_MESSAGES,
  splitPopulation,
  utf8Bytes,
  withId,
} from "../../../src/objects/registration/outbox-messages";
import type { ItemObservation } from "../../../src/queues/messages";
import { emptyDelta, emptyObjectiveCounts, type StatisticsDelta } from "../../../src/tracing/statistics";

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

describe("held answers as messages", () => {
  /** What heldMessages must equal: the rows parsed, concatenated and split by outboxMessages. */
  const parsedAndSplit = (rows: string[]) =>
    outboxMessages(
      graph,
      rows.flatMap((r) => JSON.parse(r) as ItemObservation[]),
    );
  const observation = (i: number): ItemObservation => ({
    module: `mref-ü-"q"-${i}`,
    objectives: [`lref-é-${i % 7}`, `lref-${i % 3}`],
    correct: i % 2 === 0,
    predicted: i % 11 === 0 ? Number.NaN : 1 / (i + 3),
  });
  const rowsOf = (sizes: number[]) => {
    let i = 0;
    return sizes.map((n) => JSON.stringify(Array.from({ length: n }, () => observation(i++))));
  };

  it("the same messages as parsing the rows and splitting them, in one message or several", () => {
    for (const sizes of [[1], [1, 1, 1], [50], [3, 0, 5], [400, 400, 400, 400, 400]]) {
      const rows = rowsOf(sizes);
      expect(heldMessages(graph, rows)).toEqual(parsedAndSplit(rows));
    }
    expect(heldMessages(graph, rowsOf([400, 400, 400, 400, 400])).length).toBeGreaterThan(1);
    expect(heldMessages(graph, [])).toEqual([]);
    expect(heldMessages(graph, ["[]"])).toEqual([]);
  });

  it("at the size limit: one message one byte below it, the split's answer at it", () => {
    const envelope = `{"graphUuid":"${graph}","observations":[]}`.length;
    const one = (textBytes: number) => {
      const bare = JSON.stringify([{ module: "", objectives: ["lref-a"], correct: true, predicted: 0.5 }]);
      return [JSON.stringify([{ module: "m".repeat(textBytes - envelope - (bare.length - 2)), objectives: ["lref-a"], correct: true, predicted: 0.5 }])];
    };
    for (const bytes of [MESSAGE_BYTES - 1, MESSAGE_BYTES, MESSAGE_BYTES + 1]) {
      const rows = one(bytes);
      expect(heldMessages(graph, rows)).toEqual(parsedAndSplit(rows));
    }
    expect(utf8Bytes(heldMessages(graph, one(MESSAGE_BYTES - 1))[0] ?? "")).toBe(MESSAGE_BYTES - 1);
    // at the limit the split drops the objective list (outboxMessages' rule), and so does heldMessages
    expect(JSON.parse(heldMessages(graph, one(MESSAGE_BYTES))[0] ?? "{}").observations[0].objectives).toEqual([]);
  });
});

describe("population deltas as messages", () => {
  /** `objectives` objectives with `itemsEach` items each; every third objective has item counts only (no objective counts). */
  const deltaOf = (objectives: number, itemsEach: number, name = (i: number) => `lref-é-${i}`): StatisticsDelta => {
    const delta = emptyDelta();
    delta.speed = { learners: 1, logSquares: 0.123456789 };
    for (let o = 0; o < objectives; o++) {
      const objective = name(o);
      if (o % 3 !== 2) delta.objectives[objective] = { ...emptyObjectiveCounts(), episodes: 1 / (o + 3), learnings: o % 5 === 0 ? Number.NaN : 0.25 };
      for (let i = 0; i < itemsEach; i++) {
        delta.items[`mref-"q"-${o}-${i}`] = { objective, known: 1 / (i + 7), knownRight: 0.5, unknown: 0.1 * i, unknownRight: 0, partial: 0.2 };
      }
    }
    return delta;
  };

  /** The split as first written: each objective's share stringified to be counted, each message stringified from its parts. */
  const stringifiedSplit = (delta: StatisticsDelta): string[] => {
    const body = (part: StatisticsDelta) => JSON.stringify({ graphUuid: graph, observations: [], population: part });
    const groups = new Map<string, { objective: StatisticsDelta["objectives"][string] | undefined; items: StatisticsDelta["items"] }>();
    for (const [item, c] of Object.entries(delta.items)) {
      const group = groups.get(c.objective) ?? { objective: undefined, items: {} };
      group.items[item] = c;
      groups.set(c.objective, group);
    }
    const ordered = new Map(
      [...Object.keys(delta.objectives), ...groups.keys()].map((k) => [k, { objective: delta.objectives[k], items: groups.get(k)?.items ?? {} }]),
    );
    const messages: string[] = [];
    let part = emptyDelta();
    part.speed = delta.speed;
    let bytes = utf8Bytes(body(part));
    for (const [objective, share] of ordered) {
      const size = utf8Bytes(JSON.stringify(share)) + objective.length * 2 + 8;
      if (bytes + size > MESSAGE_BYTES && (Object.keys(part.objectives).length || Object.keys(part.items).length)) {
        messages.push(body(part));
        part = emptyDelta();
        bytes = utf8Bytes(body(part));
      }
      if (share.objective) part.objectives[objective] = share.objective;
      Object.assign(part.items, share.items);
      bytes += size;
    }
    messages.push(body(part));
    return messages;
  };

  it("the same messages as the split that counts each objective, in one message or several", () => {
    const mixed = deltaOf(900, 5, (i) => (i % 4 === 0 ? `${i}` : i % 4 === 1 ? `lref-é-${i}` : `lref-${i}`));
    for (const [k, c] of Object.entries(mixed.items).slice(0, 40)) mixed.items[`${k.length * 1000 + Object.keys(mixed.items).length}`] = c;
    const deltas = [emptyDelta(), deltaOf(1, 0), deltaOf(51, 10), deltaOf(300, 4), deltaOf(2000, 3), deltaOf(600, 10, (i) => `${i}`), mixed];
    for (const delta of deltas) expect(splitPopulation(graph, delta)).toEqual(stringifiedSplit(delta));
    for (const delta of deltas) expect(populationMessages(graph, delta)).toEqual(splitPopulation(graph, delta));
    expect(populationMessages(graph, deltaOf(51, 10))).toHaveLength(1);
    expect(populationMessages(graph, deltaOf(2000, 3)).length).toBeGreaterThan(1);
  });

  it("near the size limit: one message below it, the split's messages above it", () => {
    // few entries with long objective names, so the single message is tried and its bound is what decides
    const longName = (i: number) => `lref-${"x".repeat(400)}-${i}`;
    const counts = new Map<number, number>();
    for (let objectives = 60; objectives < 160; objectives += 4) {
      const delta = deltaOf(objectives, 1, longName);
      const messages = populationMessages(graph, delta);
      expect(messages).toEqual(splitPopulation(graph, delta));
      for (const m of messages) expect(utf8Bytes(m)).toBeLessThanOrEqual(MESSAGE_BYTES);
      counts.set(messages.length, (counts.get(messages.length) ?? 0) + 1);
    }
    expect(counts.get(1)).toBeGreaterThan(0);
    expect(counts.get(2)).toBeGreaterThan(0);
  });
});

describe("batchLength: how many messages one queue batch takes", () => {
  it("at most SEND_BATCH_MESSAGES and SEND_BATCH_BYTES, at least one", () => {
    expect(batchLength(new Array(250).fill(10))).toBe(SEND_BATCH_MESSAGES);
    expect(batchLength([SEND_BATCH_BYTES - 5, 5, 1])).toBe(2);
    expect(batchLength([SEND_BATCH_BYTES + 1, 1])).toBe(1);
    expect(batchLength([])).toBe(0);
  });

  it("a message with its id added is the text of the object with the id first (what the queue sent before, as JSON)", () => {
    const delta = emptyDelta();
    delta.objectives["lref-é"] = emptyObjectiveCounts();
    const bodies = [
      ...populationMessages(graph, delta),
      ...heldMessages(graph, [JSON.stringify([{ module: "mref-a1", objectives: ["lref-a"], correct: true, predicted: 0.25 }])]),
    ];
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      const id = 'registration-"1":42';
      expect(withId(id, body)).toBe(JSON.stringify({ id, ...JSON.parse(body) }));
    }
  });
});
