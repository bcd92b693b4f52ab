import { canonicalJson } from "../lib/canonical-json";
import { exactDurationMs } from "../lib/iso-duration";
import type { EventInput } from "../objects/registration/rpc";
import type { ErrorDetail } from "../schemas/common";
import type { Statement } from "../schemas/xapi";

/**
 * How an xAPI statement becomes a Pathwise event (docs/xapi.md has the table). Pure: the statement
 * and the clock in, the event or the reasons it cannot be one out. What needs storage (the
 * registration, its account, the graph's modules) is checked by src/services/xapi.ts.
 */

/** Events may not be dated more than this far in the future (as the event endpoints). */
const FUTURE_TOLERANCE_MS = 5 * 60 * 1000;
/** The event endpoints' largest `duration`: 7 days. */
const MAX_DURATION_MS = 7 * 24 * 3600 * 1000;
const VOIDED = "http://adlnet.gov/expapi/verbs/voided";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface MappedStatement {
  /** the statement id (the one sent, or generated) */
  id: string;
  registrationId: string;
  /** actor.account.name: must be the registration's account external_user_id */
  actorName: string;
  /** where the statement is in the request: `body` or `body[3]` */
  at: string;
  event: EventInput;
}

export type MappingResult = { ok: true; statement: MappedStatement } | { ok: false; unsupported: boolean; details: ErrorDetail[] };

const isModuleRef = (text: string) => text.startsWith("mref-") || UUID.test(text);

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * The module an activity id names: an mref- label or a module uuid as such; `urn:uuid:<uuid>`;
 * otherwise the IRI's fragment, or else its last segment after `/` or `:` (query dropped, percent-
 * decoded), when that is an mref- label or a uuid. Whether the graph has that module is checked later.
 */
export function moduleRefOf(activityId: string): string | undefined {
  if (isModuleRef(activityId)) return activityId;
  const hash = activityId.indexOf("#");
  const fragment = hash >= 0 ? decoded(activityId.slice(hash + 1)) : undefined;
  if (fragment && isModuleRef(fragment)) return fragment;
  const rest = (hash >= 0 ? activityId.slice(0, hash) : activityId).replace(/\?.*$/, "").replace(/\/+$/, "");
  const last = decoded(rest.slice(Math.max(rest.lastIndexOf("/"), rest.lastIndexOf(":")) + 1));
  return last && isModuleRef(last) ? last : undefined;
}

/**
 * One statement -> one graded (result.success present) or ungraded event, or every reason it cannot
 * be one (400), or `unsupported` (501: voiding). `at` is where the statement sits in the request.
 */
export function mapStatement(statement: Statement, at: string, nowMs: number, newId: () => string): MappingResult {
  if (statement.verb.id === VOIDED) {
    return { ok: false, unsupported: true, details: [{ path: `${at}.verb.id`, message: "voiding statements are not supported (docs/xapi.md)" }] };
  }
  const details: ErrorDetail[] = [];
  const problem = (path: string, message: string) => details.push({ path: `${at}.${path}`, message });

  const { actor, object, result, context } = statement;
  // zod requires the account; these are the rules it cannot state
  const other = actor as { mbox?: unknown; mbox_sha1sum?: unknown; openid?: unknown };
  if (other.mbox !== undefined || other.mbox_sha1sum !== undefined || other.openid !== undefined) {
    problem("actor", "identify the learner by account only: mbox, mbox_sha1sum and openid are not accepted (Pathwise keeps no e-mail addresses)");
  }
  let moduleId: string | undefined;
  if (object.objectType !== undefined && object.objectType !== "Activity") {
    problem("object.objectType", `must be Activity (a module of the graph); ${object.objectType} objects are not supported`);
  } else if (object.id === undefined) {
    problem("object.id", "required: the module's mref- label, its uuid, or an activity IRI naming one");
  } else {
    moduleId = moduleRefOf(object.id);
    if (!moduleId) problem("object.id", "names no module: send the mref- label, the module uuid, or an IRI whose last segment or fragment is one");
  }
  const registrationId = context?.registration;
  if (!registrationId) problem("context.registration", "required: the Pathwise registration id");

  let durationMs: number | undefined;
  if (result?.duration !== undefined) {
    durationMs = exactDurationMs(result.duration);
    if (durationMs === undefined) problem("result.duration", "must be an ISO 8601 duration in weeks, days, hours, minutes and seconds (e.g. PT1M30S)");
    else if (durationMs > MAX_DURATION_MS) problem("result.duration", "must be at most 7 days");
  }

  const occurredAt = statement.timestamp === undefined ? nowMs : Date.parse(statement.timestamp);
  if (occurredAt < 0) problem("timestamp", "must not be before 1970-01-01T00:00:00Z");
  if (occurredAt > nowMs + FUTURE_TOLERANCE_MS) problem("timestamp", "more than 5 minutes in the future");

  if (details.length || !moduleId || !registrationId) return { ok: false, unsupported: false, details };
  const id = statement.id ?? newId();
  const event: EventInput = {
    kind: result?.success === undefined ? "ungraded" : "graded",
    moduleId,
    occurredAt,
    path: `${at}.object.id`,
    correct: result?.success,
    durationMs,
    statement: { id, fingerprint: "" },
  };
  return { ok: true, statement: { id, registrationId, actorName: actor.account.name, at, event } };
}

/**
 * SHA-256 of what makes a statement this statement: everything but its id and the properties an
 * LRS sets itself (stored, authority, version), in canonical JSON.
 */
export async function statementFingerprint(statement: Statement): Promise<string> {
  const { id: _id, stored: _stored, authority: _authority, version: _version, ...content } = statement as Statement & { stored?: unknown; authority?: unknown };
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonicalJson(content)));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
