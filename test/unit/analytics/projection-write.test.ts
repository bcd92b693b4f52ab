import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { applyProjectionMessage, type ProjectionMessage } from "../../../src/analytics";
import { accountProjections } from "../../../src/db/schema";
import { projectionWrite } from "../../../src/queues/projections";

// The statements as drizzle built them before they were raw (`toSQL()` needs no database).
const db = drizzle({} as D1Database);
const row = { accountId: "0b6e2f1c-1111-4222-8333-444455556666", graphId: "7a1f3c2e-0000-4000-8000-000000000000" };
const message: ProjectionMessage = {
  version: 1,
  accountId: row.accountId,
  graphId: row.graphId,
  registrationId: "5d2c1b0a-9999-4888-8777-666655554444",
  registrationCreatedAt: 1_790_000_000_000,
  seq: 3,
  lastActivity: 1_790_000_100_000,
  global: [0.1, 0.2, 3, 1_790_000_100_000],
  objectives: { "lref-é": [0.5, 0.25, 2, 1_790_000_050_000] },
  answered: { "lref-é": [17, 42] },
} as unknown as ProjectionMessage;
const body = applyProjectionMessage(undefined, message);
const now = 1_790_000_200_123;

describe("the projections consumer's raw writes are the ones drizzle built", () => {
  it("the first row of an (account, graph): an insert that yields to a concurrent one", () => {
    const reference = db
      .insert(accountProjections)
      .values({ ...row, body, revision: 1, updatedAt: now })
      .onConflictDoNothing()
      .returning({ accountId: accountProjections.accountId })
      .toSQL();
    expect(projectionWrite(row, body, undefined, now)).toEqual(reference);
  });

  it("a stored row: a compare-and-set on the revision read", () => {
    const reference = db
      .update(accountProjections)
      .set({ body, revision: 8, updatedAt: now })
      .where(and(eq(accountProjections.graphId, row.graphId), eq(accountProjections.accountId, row.accountId), eq(accountProjections.revision, 7)))
      .returning({ accountId: accountProjections.accountId })
      .toSQL();
    expect(projectionWrite(row, body, 7, now)).toEqual(reference);
  });
});
