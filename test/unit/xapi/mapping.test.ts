import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/lib/canonical-json";
import { exactDurationMs } from "../../../src/lib/iso-duration";
import type { Statement } from "../../../src/schemas/xapi";
import { mapStatement, moduleRefOf, statementFingerprint } from "../../../src/services/xapi-mapping";

const UUID = "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed";
const NOW = Date.parse("2027-01-05T15:10:00Z");

const statement = (fields: Partial<Statement> = {}): Statement => ({
  actor: { account: { homePage: "https://lms.example.edu", name: "student-4711" } },
  verb: { id: "http://adlnet.gov/expapi/verbs/answered" },
  object: { id: "https://lms.example.edu/activities/mref-q1" },
  context: { registration: UUID },
  timestamp: "2027-01-05T15:04:00Z",
  ...fields,
});

describe("moduleRefOf: which module an activity id names (docs/xapi.md)", () => {
  it.each([
    ["mref-q1", "mref-q1"],
    [UUID, UUID],
    [`urn:uuid:${UUID}`, UUID],
    ["https://lms.example.edu/activities/mref-q1", "mref-q1"],
    ["https://lms.example.edu/activities/mref-q1/", "mref-q1"],
    ["https://lms.example.edu/activities/mref-q1?attempt=2", "mref-q1"],
    ["https://lms.example.edu/course#mref-q1", "mref-q1"],
    ["https://lms.example.edu/activities/mref-q1#part-2", "mref-q1"],
    [`https://lms.example.edu/items/${UUID}`, UUID],
    ["https://lms.example.edu/activities/mref-caf%C3%A9", "mref-café"],
    ["tag:lms.example.edu,2027:mref-q1", "mref-q1"],
  ])("%s -> %s", (id, ref) => {
    expect(moduleRefOf(id)).toBe(ref);
  });

  it.each(["https://lms.example.edu/activities/q1", "https://lms.example.edu/", "urn:uuid:nope", "https://lms.example.edu/activities/%E0%A4%A"])(
    "%s names none",
    (id) => {
      expect(moduleRefOf(id)).toBeUndefined();
    },
  );
});

describe("exactDurationMs: result.duration", () => {
  it.each([
    ["PT42S", 42_000],
    ["PT1M30.5S", 90_500],
    ["PT0.25S", 250],
    ["PT2H", 7_200_000],
    ["P1DT1H", 90_000_000],
    ["P1W", 604_800_000],
  ])("%s = %d ms", (text, ms) => {
    expect(exactDurationMs(text)).toBe(ms);
  });

  it.each(["P1Y", "P2M", "P", "PT", "P1DT", "42", "PT-1S", "1H"])("%s is refused", (text) => {
    expect(exactDurationMs(text)).toBeUndefined();
  });
});

describe("mapStatement", () => {
  const map = (s: Statement) => mapStatement(s, "body", NOW, () => "generated-id");

  it("result.success present -> a graded event with is_correct, duration and time", () => {
    const r = map(statement({ id: UUID, result: { success: false, duration: "PT20S" } }));
    expect(r).toEqual({
      ok: true,
      statement: {
        id: UUID,
        registrationId: UUID,
        actorName: "student-4711",
        at: "body",
        event: {
          kind: "graded",
          moduleId: "mref-q1",
          occurredAt: Date.parse("2027-01-05T15:04:00Z"),
          path: "body.object.id",
          correct: false,
          durationMs: 20_000,
          statement: { id: UUID, fingerprint: "" },
        },
      },
    });
  });

  it("result.success absent -> an ungraded event; no id -> a generated one; no timestamp -> the time received", () => {
    const r = map(statement({ result: { completion: true }, timestamp: undefined }));
    expect(r.ok && r.statement.event).toMatchObject({ kind: "ungraded", correct: undefined, occurredAt: NOW });
    expect(r.ok && r.statement.id).toBe("generated-id");
  });

  it("voiding is unsupported (501), and every other problem is named at once (400)", () => {
    expect(map(statement({ verb: { id: "http://adlnet.gov/expapi/verbs/voided" } }))).toMatchObject({ ok: false, unsupported: true });
    const r = map({
      actor: { account: { homePage: "https://x", name: "student-4711" }, mbox: "mailto:x@example.com" } as Statement["actor"],
      verb: { id: "http://adlnet.gov/expapi/verbs/answered" },
      object: { id: "https://lms.example.edu/activities/q1" },
      context: { registration: UUID },
      result: { duration: "P8D" },
      timestamp: "2027-01-05T16:00:00Z",
    });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.details.map((d) => d.path)).toEqual(["body.actor", "body.object.id", "body.result.duration", "body.timestamp"]);
  });
});

describe("statementFingerprint", () => {
  it("ignores key order, the id and what an LRS sets (stored, authority, version), and sees any other change", async () => {
    const a = statement({ result: { success: true } });
    const reordered = JSON.parse(canonicalJson(a)) as Statement;
    const withLrsFields = {
      ...a,
      id: UUID,
      version: "1.0.3",
      stored: "2027-01-05T15:05:00Z",
      authority: { account: { homePage: "x", name: "y" } },
    } as Statement;
    expect(await statementFingerprint(reordered)).toBe(await statementFingerprint(a));
    expect(await statementFingerprint(withLrsFields)).toBe(await statementFingerprint(a));
    expect(await statementFingerprint({ ...a, result: { success: false } })).not.toBe(await statementFingerprint(a));
  });
});
