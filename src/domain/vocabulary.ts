/**
 * The enumerations of the API written once: the zod schemas (src/schemas), the D1 schema
 * (src/db/schema.ts) and the services all build on these lists.
 */
export const REGISTRATION_TYPES = ["learner", "instructor"] as const;
export type RegistrationType = (typeof REGISTRATION_TYPES)[number];

export const ADAPTIVE_BEHAVIORS = ["practice", "introduce", "review"] as const;

export const COMPLETION_BEHAVIORS = ["all", "average"] as const;

/** `config.assign_to` of a goal: which registrations of the instance it is assigned to at creation. */
export const ASSIGN_TO = ["none", "learners", "instructors", "all"] as const;
export type AssignTo = (typeof ASSIGN_TO)[number];

export const TARGET_KINDS = ["objective", "module"] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];
