import type { Db } from "../../db/client";
import { type AccountRow, dataRequests } from "../../db/schema";
import type { Env } from "../../env";
import type { ExportFormat } from "../../schemas/data-lifecycle";
import { dataRequestRow, finishDataRequest } from "../data-requests";
import type { Requester } from "../erasure/request";
import { accountDocument, accountStatements, type ExportTally } from "./account-export";
import { byteStream } from "./stream";

export interface ExportOptions {
  format: ExportFormat;
  /** the API's origin (xAPI activity IRIs) */
  origin: string;
  requester: Requester;
  /** keeps the Worker alive for the record's last write after the response (a client that went away) */
  waitUntil: (promise: Promise<unknown>) => void;
}

/**
 * Records the export (outcome `streaming`) and returns its byte stream; when the stream ends the
 * record gets the outcome and what was sent (registrations, events, bytes).
 */
export async function startExport(env: Env, db: Db, account: AccountRow, options: ExportOptions): Promise<ReadableStream<Uint8Array>> {
  const record = dataRequestRow(
    {
      partnerId: account.partnerId,
      kind: "export",
      subjectType: "account",
      subjectId: account.id,
      format: options.format,
      requestedBy: options.requester.accountId,
      requestId: options.requester.requestId ?? null,
      outcome: "streaming",
    },
    Date.now(),
  );
  await db.insert(dataRequests).values(record);
  const tally: ExportTally = { registrations: 0, events: 0 };
  const source = options.format === "xapi" ? accountStatements(env, db, account, options.origin, tally) : accountDocument(env, db, account, tally);
  return byteStream(source, async (end, bytes) => {
    const write = finishDataRequest(db, record.id, end, Date.now(), { ...tally, bytes }).then(
      () => undefined,
      (error: unknown) => console.error(JSON.stringify({ data_request: record.id, record: "outcome not written", error: String(error) })),
    );
    options.waitUntil(write);
    await write;
  });
}
