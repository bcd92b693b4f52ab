/** The queue's projection messages are untrusted input: their shape is checked before any merge. */
import { COVERAGE_SKETCH } from "./coverage-sketch";
import { PROJECTION_VERSION, type ProjectionMessage } from "./projection";

/** Checks the shape of an untrusted message (a poisoned one is rejected, and goes to the dead-letter queue). */
export function parseProjectionMessage(value: unknown): ProjectionMessage {
  const fail = (why: string): never => {
    throw new Error(`invalid projection message: ${why}`);
  };
  if (!value || typeof value !== "object") fail("not an object");
  const m = value as Record<string, unknown>;
  if (m.version !== PROJECTION_VERSION) fail("version");
  for (const f of ["accountId", "graphId", "registrationId"]) if (typeof m[f] !== "string" || (m[f] as string).length === 0) fail(f);
  const num = (v: unknown) => typeof v === "number" && Number.isFinite(v);
  if (!num(m.registrationCreatedAt) || !num(m.seq) || !num(m.lastActivity)) fail("registrationCreatedAt/seq/lastActivity");
  if (m.firstActivity !== undefined && !num(m.firstActivity)) fail("firstActivity");
  if (m.removed !== undefined && typeof m.removed !== "boolean") fail("removed");
  const tuple = (v: unknown) => Array.isArray(v) && v.length === 4 && v.every(num) && v[1] > 0 && v[2] >= 0;
  if (m.global !== undefined && !tuple(m.global)) fail("global");
  const safeKeys = (o: object) => Object.keys(o).every((k) => k !== "__proto__" && k.length > 0);
  if (m.objectives !== undefined) {
    if (!m.objectives || typeof m.objectives !== "object" || !safeKeys(m.objectives)) fail("objectives");
    for (const v of Object.values(m.objectives as object)) if (!tuple(v)) fail("objectives entry");
  }
  if (m.answered !== undefined) {
    if (!m.answered || typeof m.answered !== "object" || !safeKeys(m.answered)) fail("answered");
    for (const v of Object.values(m.answered as object)) {
      if (!Array.isArray(v) || v.length > COVERAGE_SKETCH || !v.every((h) => Number.isSafeInteger(h) && h >= 0)) fail("answered entry");
    }
  }
  return m as unknown as ProjectionMessage;
}
