import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// Mirrors migrations/*.sql (the migrations are the source of truth for the database).

export const partners = sqliteTable("partners", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  clientId: text("client_id").notNull().unique(),
  clientSecretHash: text("client_secret_hash").notNull(),
  adminAccountId: text("admin_account_id").notNull(),
  createdAt: integer("created_at").notNull(),
});

export const accounts = sqliteTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id").notNull(),
    externalUserId: text("external_user_id").notNull(),
    entitlements: text("entitlements", { mode: "json" }).$type<string[]>(),
    disabledAt: integer("disabled_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("accounts_partner_external").on(t.partnerId, t.externalUserId)],
);

export const learningInstances = sqliteTable(
  "learning_instances",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id").notNull(),
    graphId: text("graph_id").notNull(),
    name: text("name").notNull(),
    startDate: text("start_date"),
    endDate: text("end_date"),
    createdAt: integer("created_at").notNull(),
    deletedAt: integer("deleted_at"),
  },
  (t) => [index("learning_instances_partner").on(t.partnerId, t.createdAt)],
);

export const registrations = sqliteTable(
  "registrations",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id").notNull(),
    accountId: text("account_id").notNull(),
    learningInstanceId: text("learning_instance_id").notNull(),
    type: text("type", { enum: ["learner", "instructor"] }).notNull(),
    createdAt: integer("created_at").notNull(),
    deletedAt: integer("deleted_at"),
  },
  (t) => [
    uniqueIndex("registrations_live_member").on(t.learningInstanceId, t.accountId).where(sql`deleted_at IS NULL`),
    index("registrations_account").on(t.accountId),
  ],
);

export const accessTokens = sqliteTable("access_tokens", {
  jti: text("jti").primaryKey(),
  accountId: text("account_id").notNull(),
  expiresAt: integer("expires_at").notNull(),
});

export const refreshTokens = sqliteTable("refresh_tokens", {
  tokenHash: text("token_hash").primaryKey(),
  partnerId: text("partner_id").notNull(),
  accountId: text("account_id").notNull(),
  expiresAt: integer("expires_at").notNull(),
  usedAt: integer("used_at"),
});

export type AccountRow = typeof accounts.$inferSelect;
export type LearningInstanceRow = typeof learningInstances.$inferSelect;
export type RegistrationRow = typeof registrations.$inferSelect;
export type PartnerRow = typeof partners.$inferSelect;
