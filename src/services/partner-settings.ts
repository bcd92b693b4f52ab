import type { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { partners } from "../db/schema";
import type { PartnerSettingsSchema } from "../schemas/data-lifecycle";

type PartnerSettings = z.infer<typeof PartnerSettingsSchema>;

export async function partnerSettings(db: Db, partnerId: string): Promise<PartnerSettings> {
  const row = await db.select({ days: partners.eventRetentionDays }).from(partners).where(eq(partners.id, partnerId)).get();
  return { event_retention_days: row?.days ?? null };
}

/** Sets the retention (the scheduled retention job reads it on its next run). */
export async function updatePartnerSettings(db: Db, partnerId: string, settings: PartnerSettings): Promise<PartnerSettings> {
  await db.update(partners).set({ eventRetentionDays: settings.event_retention_days }).where(eq(partners.id, partnerId));
  return partnerSettings(db, partnerId);
}
