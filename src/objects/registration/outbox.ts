import type { ItemObservation, ModelUpdateMessage } from "../../services/item-params";
import { outboxMessages, utf8Bytes } from "./outbox-messages";

/** Queues take batches of at most 256 KB and 100 messages. */
const SEND_BATCH_BYTES = 200_000;
const SEND_BATCH_MESSAGES = 100;

export type SendResult = "empty" | "more" | "failed";

/**
 * The registration's outbox of model-update messages: written in the same transaction as the events
 * they come from, sent to the queue later (by the alarm), deleted only once the queue took them. A
 * message's id is `<registration id>:<outbox row id>`, so a repeated send is applied once by the consumer.
 */
export class Outbox {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  add(graphUuid: string, observations: ItemObservation[]): void {
    for (const body of outboxMessages(graphUuid, observations)) this.#sql.exec("INSERT INTO outbox (body) VALUES (?)", body);
  }

  /** Sends the oldest messages (one queue batch); "more" when some remain, "failed" when the queue refused (nothing deleted). */
  async sendNext(queue: Queue<ModelUpdateMessage>, registrationId: string): Promise<SendResult> {
    const rows: { id: number; body: string }[] = [];
    let bytes = 0;
    for (const row of this.#sql.exec<{ id: number; body: string }>("SELECT id, body FROM outbox ORDER BY id LIMIT ?", SEND_BATCH_MESSAGES)) {
      const size = utf8Bytes(row.body);
      if (rows.length > 0 && bytes + size > SEND_BATCH_BYTES) break;
      rows.push(row);
      bytes += size;
    }
    if (rows.length === 0) return "empty";
    try {
      await queue.sendBatch(rows.map((r) => ({ body: { id: `${registrationId}:${r.id}`, ...(JSON.parse(r.body) as Omit<ModelUpdateMessage, "id">) } })));
    } catch (error) {
      console.error(JSON.stringify({ registration: registrationId, outbox: "send failed, retrying", error: String(error) }));
      return "failed";
    }
    const last = rows[rows.length - 1]?.id ?? 0;
    this.#sql.exec("DELETE FROM outbox WHERE id <= ?", last);
    return this.size() > 0 ? "more" : "empty";
  }

  size(): number {
    return this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM outbox").one().n;
  }
}
