// Operator command: provisions a partner and its admin account (README.md "Provisioning partners").
//   npm run --silent partner -- create --name NAME [--local|--remote]
// Prints exactly one JSON object on stdout; the client secret is shown once and stored only as a digest.
import { parseArgs } from "node:util";
import { newPartnerRecords } from "../src/services/partners";
import { d1Execute, sqlLiteral, type Target } from "./lib/wrangler";

function usage(message?: string): never {
  if (message) process.stderr.write(`${message}\n`);
  process.stderr.write("usage: npm run --silent partner -- create --name NAME [--local|--remote]\n");
  process.exit(2);
}

/** The SQL that stores a new partner and its admin account (the records of newPartnerRecords). */
export function partnerSql({ partner, admin }: Awaited<ReturnType<typeof newPartnerRecords>>): string {
  return [
    `INSERT INTO partners (id, name, client_id, client_secret_hash, admin_account_id, created_at) VALUES (${[
      partner.id,
      partner.name,
      partner.clientId,
      partner.clientSecretHash,
      partner.adminAccountId,
      partner.createdAt,
    ]
      .map(sqlLiteral)
      .join(", ")});`,
    `INSERT INTO accounts (id, partner_id, external_user_id, entitlements, disabled_at, created_at) VALUES (${[
      admin.id,
      admin.partnerId,
      admin.externalUserId,
      JSON.stringify(admin.entitlements),
      null,
      admin.createdAt,
    ]
      .map(sqlLiteral)
      .join(", ")});`,
  ].join("\n");
}

export async function createPartner(name: string, target: Target, persistTo?: string) {
  const records = await newPartnerRecords(name);
  d1Execute(partnerSql(records), target, persistTo);
  return records.credentials;
}

async function main() {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    options: { name: { type: "string" }, local: { type: "boolean" }, remote: { type: "boolean" } },
    allowPositionals: true,
  });
  if (positionals[0] !== "create") usage(`unknown command '${positionals[0] ?? ""}'`);
  if (!values.name?.trim()) usage("--name is required");
  if (values.local && values.remote) usage("choose one of --local and --remote");
  const credentials = await createPartner(values.name.trim(), values.remote ? "remote" : "local");
  process.stdout.write(`${JSON.stringify(credentials)}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
