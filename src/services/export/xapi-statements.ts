import type { z } from "@hono/zod-openapi";
import type { ExportedEventRow } from "../../objects/registration/export";
import type { XapiStatementSchema } from "../../schemas/data-lifecycle";

/**
 * A stored event as an xAPI 1.0.3 statement (decisions.md "Student data lifecycle": the export
 * with `?format=xapi`; docs/privacy.md "Export" has the mapping table). Statement ids are
 * name-based (UUID version 5 of the registration and the event's sequence number), so exporting
 * twice gives the same statements and an LRS stores each once. No `version`, `stored` or
 * `authority`: an LRS sets them.
 */
export type XapiStatement = z.infer<typeof XapiStatementSchema>;

/** What every statement of one registration shares. */
export interface StatementContext {
  /** the API's origin, e.g. https://pathwise.example.com: activity and extension IRIs live under it */
  origin: string;
  externalUserId: string;
  registrationId: string;
  learningInstanceId: string;
  graphUuid: string;
}

const VERBS = {
  graded: { id: "http://adlnet.gov/expapi/verbs/answered", display: { "en-US": "answered" } },
  ungraded: { id: "http://adlnet.gov/expapi/verbs/experienced", display: { "en-US": "experienced" } },
  "recommendation-followed": { id: "http://adlnet.gov/expapi/verbs/launched", display: { "en-US": "launched" } },
  focus: { id: "http://id.tincanapi.com/verb/selected", display: { "en-US": "selected" } },
} as const;

const ACTIVITY_TYPES = {
  graded: "http://adlnet.gov/expapi/activities/question",
  ungraded: "http://adlnet.gov/expapi/activities/lesson",
  "recommendation-followed": "http://adlnet.gov/expapi/activities/lesson",
  focus: "http://adlnet.gov/expapi/activities/objective",
} as const;

/** The namespace of the statement ids (a fixed random UUID). */
const STATEMENT_NAMESPACE = "8c4f3e2a-6b1d-4e7f-9a05-3d2c1b0e9f81";

/** ms -> ISO 8601 duration (`PT1M30.5S`), as xAPI's result.duration takes it. */
export function isoDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms)) / 1000;
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total - hours * 3600) / 60);
  const seconds = Math.round((total - hours * 3600 - minutes * 60) * 1000) / 1000;
  return `PT${hours ? `${hours}H` : ""}${minutes ? `${minutes}M` : ""}${seconds || (!hours && !minutes) ? `${seconds}S` : ""}`;
}

/** RFC 4122 version 5 UUID (SHA-1, name-based). */
export async function uuidV5(name: string, namespace = STATEMENT_NAMESPACE): Promise<string> {
  const ns = Uint8Array.from(namespace.replace(/-/g, "").match(/../g) ?? [], (h) => Number.parseInt(h, 16));
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-1", new Uint8Array([...ns, ...new TextEncoder().encode(name)]))).slice(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The IRI of a module of the graph: its last segment is the mref- label, which Pathwise's own xAPI intake maps back to the module. */
export const moduleIri = (ctx: StatementContext, label: string) => `${ctx.origin}/xapi/activities/${ctx.graphUuid}/${encodeURIComponent(label)}`;
const extension = (ctx: StatementContext, name: string) => `${ctx.origin}/xapi/extensions/${name}`;

export async function statementOf(ctx: StatementContext, event: ExportedEventRow): Promise<XapiStatement> {
  const body = event.body;
  const objectId =
    event.kind === "focus"
      ? `${ctx.origin}/xapi/activities/goals/${encodeURIComponent(body.goal_id ?? "")}`
      : moduleIri(ctx, event.module ?? body.module_id ?? "");
  const result: XapiStatement["result"] = {};
  if (event.kind === "graded") result.success = body.is_correct === true;
  if (body.duration !== undefined) result.duration = isoDuration(body.duration);
  const extensions: Record<string, string | number> = {};
  if (body.goal_id !== undefined && event.kind !== "focus") extensions[extension(ctx, "goal_id")] = body.goal_id;
  if (body.instance_hash !== undefined) extensions[extension(ctx, "instance_hash")] = body.instance_hash;
  if (body.recommendation_id !== undefined) extensions[extension(ctx, "recommendation_id")] = body.recommendation_id;
  // an event that came in as an xAPI statement names it; the exported statement has its own id (another LRS may hold the original)
  if (body.statement_id !== undefined) extensions[extension(ctx, "statement_id")] = body.statement_id;
  return {
    id: await uuidV5(`${ctx.registrationId}/${event.seq}`),
    actor: { objectType: "Agent", account: { homePage: ctx.origin, name: ctx.externalUserId } },
    verb: VERBS[event.kind],
    object: { objectType: "Activity", id: objectId, definition: { type: ACTIVITY_TYPES[event.kind] } },
    ...(Object.keys(result).length ? { result } : {}),
    context: {
      registration: ctx.registrationId,
      contextActivities: { grouping: [{ objectType: "Activity", id: `${ctx.origin}/xapi/activities/learning-instances/${ctx.learningInstanceId}` }] },
      ...(Object.keys(extensions).length ? { extensions } : {}),
    },
    timestamp: new Date(event.occurred_at).toISOString(),
  };
}
