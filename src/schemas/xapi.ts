import { z } from "@hono/zod-openapi";
import { isoDateTime, uuid } from "./common";
import { MAX_BATCH_EVENTS } from "./limits";
import { freeText, identifierText } from "./text";

/**
 * xAPI 1.0.x statements as Pathwise takes them in (docs/xapi.md). zod checks types and sizes only
 * (400 with details); what a statement must say to map to an event (an account actor, a
 * registration, a module) is checked by src/services/xapi-mapping.ts, also as 400 naming the
 * field. Objects are open: the other properties xAPI defines (verb.display, result.score,
 * context.contextActivities, extensions, ...) are accepted and not used. Identifiers (IRIs, the
 * account name) follow the identifier rule (Unicode categories, NFC) and timestamp the date range
 * 1970-2100, as everywhere (docs/security.md "Controls"); at most 500 statements, naming at most as
 * many registrations, per request.
 */
const Iri = identifierText.min(1).max(2048);

const AccountSchema = z.object({
  homePage: Iri.openapi({ description: "The partner's system (not checked)", example: "https://lms.example.edu" }),
  name: identifierText
    .min(1)
    .max(255)
    .openapi({ description: "The Pathwise account's `external_user_id` (must be that of the registration's account)", example: "student-4711" }),
});

const ActorSchema = z
  .looseObject({
    objectType: z.literal("Agent").optional().openapi({ description: "Agent (a group names no single learner)" }),
    name: freeText.max(500).optional(),
    account: AccountSchema,
  })
  .openapi({
    description:
      "An Agent identified by `account` alone: a statement whose actor also carries mbox, mbox_sha1sum or openid is refused (Pathwise keeps no e-mail addresses)",
  });

/** Languages of a verb's display map (docs/security.md "Limits": every list has a documented maximum). */
const DISPLAY_LANGUAGES_MAX = 50;

const VerbSchema = z.looseObject({
  id: Iri.openapi({ example: "http://adlnet.gov/expapi/verbs/answered" }),
  display: z
    .record(z.string().max(50), z.string().max(500))
    .refine((map) => Object.keys(map).length <= DISPLAY_LANGUAGES_MAX, { message: `at most ${DISPLAY_LANGUAGES_MAX} languages` })
    .optional()
    .openapi({ maxProperties: DISPLAY_LANGUAGES_MAX, description: `A language map (not used), at most ${DISPLAY_LANGUAGES_MAX} languages` }),
});

const ObjectSchema = z.looseObject({
  objectType: z.enum(["Activity", "Agent", "Group", "StatementRef", "SubStatement"]).optional().openapi({
    description: "Activity (or absent). Agents, groups and sub-statements are refused (400); a StatementRef with the voided verb is voiding (501)",
  }),
  id: Iri.optional().openapi({
    description: "The module: its mref- label, its uuid, `urn:uuid:<uuid>`, or an IRI whose fragment or last path segment is one of these",
    example: "https://lms.example.edu/activities/mref-one-step-eq-q1",
  }),
});

const ResultSchema = z.looseObject({
  success: z.boolean().optional().openapi({ description: "Present: a graded event with `is_correct` = success. Absent: an ungraded event" }),
  completion: z.boolean().optional(),
  duration: z
    .string()
    .max(64)
    .optional()
    .openapi({ description: "ISO 8601 duration (days, hours, minutes, seconds; fractions allowed): the event's `duration`", example: "PT42S" }),
  response: z.string().max(10_000).optional(),
});

const ContextSchema = z.looseObject({
  registration: uuid.optional().openapi({ description: "The Pathwise registration id (required)", example: "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed" }),
});

export const StatementSchema = z
  .looseObject({
    id: uuid.optional().openapi({ description: "The statement id (generated when absent): a statement is stored once per id" }),
    actor: ActorSchema,
    verb: VerbSchema,
    object: ObjectSchema,
    result: ResultSchema.optional(),
    context: ContextSchema.optional().openapi({ description: "Required, with `registration` (a voiding statement carries none: it is answered 501)" }),
    timestamp: isoDateTime.optional().openapi({ description: "When the interaction ended: the event's `interaction_end_time` (absent: the time received)" }),
    version: z.string().max(20).optional(),
  })
  .openapi("XapiStatement", {
    description: "An xAPI 1.0.x statement; docs/xapi.md maps each field to a graded or ungraded event.",
    example: {
      id: "6b0f8d5e-1c52-4a3f-9f53-0c8d6b1f2a77",
      actor: { objectType: "Agent", account: { homePage: "https://lms.example.edu", name: "student-4711" } },
      verb: { id: "http://adlnet.gov/expapi/verbs/answered", display: { "en-US": "answered" } },
      object: { objectType: "Activity", id: "https://lms.example.edu/activities/mref-one-step-eq-q1" },
      result: { success: true, duration: "PT42S" },
      context: { registration: "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed" },
      timestamp: "2027-01-05T15:04:00Z",
    },
  });
export type Statement = z.infer<typeof StatementSchema>;

export const StatementListSchema = z
  .array(StatementSchema)
  .min(1)
  .max(MAX_BATCH_EVENTS, { message: `at most ${MAX_BATCH_EVENTS} statements per request` });

/** POST: one statement or an array (xAPI 7.2.2). */
export const PostStatementsBody = z.union([StatementSchema, StatementListSchema]).openapi("XapiStatements", {
  description: `One statement, or an array of 1 to ${MAX_BATCH_EVENTS}: validated together and stored all or nothing.`,
});

export const StatementIdsSchema = z.array(z.string().uuid()).openapi("XapiStatementIds", {
  description: "The statement ids, in the order of the statements sent (generated ids included)",
  example: ["6b0f8d5e-1c52-4a3f-9f53-0c8d6b1f2a77"],
});

/** The versions of xAPI this endpoint speaks (the X-Experience-API-Version header). */
export const XAPI_VERSION = "1.0.3";
export const XapiVersionHeader = z.object({
  "x-experience-api-version": z
    .string()
    .regex(/^1\.0(\.\d+)?$/, { message: "must be an xAPI 1.0.x version (for example 1.0.3)" })
    .openapi({ description: "The xAPI version of the request: 1.0.x", example: XAPI_VERSION }),
});

export const PutStatementQuery = z.object({
  statementId: uuid.openapi({ param: { name: "statementId", in: "query" }, description: "The statement's id (xAPI 7.2.1)" }),
});
