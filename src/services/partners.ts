import { hashSecret, randomSecret } from "../auth/secrets";
import type { Db } from "../db/client";
import { type AccountRow, accounts, type PartnerRow, partners } from "../db/schema";
import { ADMIN_ENTITLEMENTS } from "./accounts";

/** What the operator is shown once: the secret is stored only as a digest. */
export interface PartnerCredentials {
  partner_id: string;
  client_id: string;
  client_secret: string;
  admin_account_id: string;
  admin_external_user_id: string;
}

export interface PartnerRecords {
  partner: PartnerRow;
  admin: AccountRow;
  credentials: PartnerCredentials;
}

/** Builds a new partner with its admin account. Pure apart from randomness: the CLI and tests share it. */
export async function newPartnerRecords(name: string, now = Date.now()): Promise<PartnerRecords> {
  const partnerId = crypto.randomUUID();
  const adminId = crypto.randomUUID();
  const clientId = `pw_${randomSecret(12)}`;
  const clientSecret = randomSecret(32);
  const adminExternalUserId = `partner-admin-${partnerId.slice(0, 8)}`;
  return {
    partner: {
      id: partnerId,
      name,
      clientId,
      clientSecretHash: await hashSecret(clientSecret),
      adminAccountId: adminId,
      createdAt: now,
      eventRetentionDays: null,
    },
    admin: {
      id: adminId,
      partnerId,
      externalUserId: adminExternalUserId,
      entitlements: [...ADMIN_ENTITLEMENTS],
      disabledAt: null,
      createdAt: now,
      erasedAt: null,
    },
    credentials: {
      partner_id: partnerId,
      client_id: clientId,
      client_secret: clientSecret,
      admin_account_id: adminId,
      admin_external_user_id: adminExternalUserId,
    },
  };
}

export async function provisionPartner(db: Db, name: string): Promise<PartnerCredentials> {
  const records = await newPartnerRecords(name);
  await db.batch([db.insert(partners).values(records.partner), db.insert(accounts).values(records.admin)]);
  return records.credentials;
}
