import { env } from "cloudflare:test";

/**
 * Tables written by the queue consumers in the background (after an event's outbox
 * alarm), not by the request that is being observed: left out of before/after comparisons.
 */
export const BACKGROUND_TABLES = ["item_params", "applied_model_updates", "dead_letters", "account_projections"];

/** Row count of every D1 table of the service (one query), except `exclude`. */
export async function rowCounts(exclude: string[] = BACKGROUND_TABLES): Promise<Record<string, number>> {
  const { results } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations' ORDER BY name",
  ).all<{ name: string }>();
  const tables = results.map((r) => r.name).filter((n) => !exclude.includes(n));
  const row = await env.DB.prepare(`SELECT ${tables.map((t) => `(SELECT COUNT(*) FROM "${t}") AS "${t}"`).join(", ")}`).first<Record<string, number>>();
  return row ?? {};
}
