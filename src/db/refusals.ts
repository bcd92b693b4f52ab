/**
 * Refusals the database itself raises (migrations' triggers, `RAISE(ABORT, '<reason>')`). D1 and
 * drizzle wrap the SQLite error, so the reason is looked for along the error's cause chain.
 */
export type DbRefusal = "learning_instance_not_live" | "learning_instance_full";

export function isRefusal(error: unknown, reason: DbRefusal): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.message.includes(reason)) return true;
  }
  return false;
}
