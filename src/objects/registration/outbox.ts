import type { ItemObservation, ModelUpdateBody, ProjectionMessage } from "../../queues/messages";
import type { StatisticsDelta } from "../../tracing/statistics";
import { batchLength, heldMessages, populationMessages, SEND_BATCH_MESSAGES, utf8Bytes, withId } from "./outbox-messages";

/** The queues the outbox sends to (the object passes its bindings: the outbox does not know the Worker's env). */
interface OutboxQueues {
  modelUpdates: Queue<ModelUpdateBody>;
  projections: Queue<ProjectionMessage>;
}

/** How soon the alarm retries an outbox send the queue refused. */
export const OUTBOX_RETRY_MS = 10_000;

/** The queues the outbox feeds: graded answers for item refinement, and the account projections of analytics. */
export type OutboxQueue = "model-updates" | "projections";

export type SendResult = "empty" | "more" | "failed";

/** Outbox rows of graded answers not yet due for a queue (sent by no one until released). */
const HELD = "held-observations";

/**
 * The registration's outbox: messages written in the same transaction as the events they come from,
 * sent to their queue later (by the alarm), deleted only once the queue took them (`deleteSent`). Model-update
 * messages carry the id `<registration id>:<outbox row id>` (the consumer applies each once).
 * Projections are sent without the outbox (./pending-projection.ts); projection rows written
 * before that are still sent from here.
 */
export class Outbox {
  readonly #sql: SqlStorage;
  /** per queue, the last row id this instance sent and has not deleted yet */
  readonly #sent = new Map<OutboxQueue, number>();

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /**
   * Keeps an event's graded answers (inside the event's transaction) until `releaseObservations`
   * puts every kept answer into one message: the population contribution's cadence, not one message
   * per event. Item refinement may lag the answers (docs/api-conventions.md "Freshness": at most 60 s).
   */
  holdObservations(observations: ItemObservation[]): void {
    if (observations.length) this.#insert(HELD, JSON.stringify(observations));
  }

  holdsObservations(): boolean {
    return this.#sql.exec("SELECT id FROM outbox WHERE queue = ? LIMIT 1", HELD).toArray().length > 0;
  }

  /** The answers kept since the last release, as model-update messages (inside the caller's transaction). */
  releaseObservations(graphUuid: string): void {
    const held = this.#sql.exec<{ body: string }>("SELECT body FROM outbox WHERE queue = ? ORDER BY id", HELD).toArray();
    if (held.length === 0) return;
    this.#sql.exec("DELETE FROM outbox WHERE queue = ?", HELD);
    const bodies = held.map((r) => r.body);
    for (const body of heldMessages(graphUuid, bodies)) this.#insert("model-updates", body);
  }

  /** The registration's change to its graph's population statistics (src/tracing/contribute.ts). */
  addPopulation(graphUuid: string, delta: StatisticsDelta): void {
    for (const body of populationMessages(graphUuid, delta)) this.#insert("model-updates", body);
  }

  #insert(queue: OutboxQueue | typeof HELD, body: string): void {
    this.#sql.exec("INSERT INTO outbox (queue, body) VALUES (?, ?)", queue, body);
  }

  /** Sends the oldest messages of every queue (one batch each); "more" when some remain, "failed" when a queue refused (nothing of it deleted). */
  async sendNext(queues: OutboxQueues, registrationId: string): Promise<SendResult> {
    const results = await Promise.all([
      this.#send("model-updates", (rows) =>
        queues.modelUpdates.sendBatch(rows.map((r) => ({ body: withId(`${registrationId}:${r.id}`, r.body), contentType: "text" }))),
      ),
      this.#send("projections", (rows) => queues.projections.sendBatch(rows.map((r) => ({ body: JSON.parse(r.body) as ProjectionMessage })))),
    ]);
    if (results.includes("failed")) return "failed";
    return results.includes("more") ? "more" : "empty";
  }

  async #send(queue: OutboxQueue, send: (rows: { id: number; body: string }[]) => Promise<unknown>): Promise<SendResult> {
    const read = this.#sql
      .exec<{ id: number; body: string }>(
        "SELECT id, body FROM outbox WHERE queue = ? AND id > ? ORDER BY id LIMIT ?",
        queue,
        this.#sent.get(queue) ?? 0,
        SEND_BATCH_MESSAGES,
      )
      .toArray();
    const rows = read.slice(0, batchLength(read.map((r) => utf8Bytes(r.body))));
    if (rows.length === 0) return "empty";
    try {
      await send(rows);
    } catch (error) {
      console.error(JSON.stringify({ outbox: queue, error: "send failed, retrying", detail: String(error) }));
      return "failed";
    }
    this.#sent.set(queue, rows[rows.length - 1]?.id ?? 0);
    // Only the alarm writes these queues' rows, so none arrived during the send.
    return rows.length < read.length || rows.length === SEND_BATCH_MESSAGES ? "more" : "empty";
  }

  /**
   * Deletes the rows this instance sent (at the start of the next alarm, inside its writes): a
   * delete right after the send cost a storage commit of its own (docs/performance.md, third pass).
   * Rows sent but not yet deleted when the instance is replaced are sent again, with the same ids:
   * the consumers apply each once.
   */
  deleteSent(): void {
    for (const [queue, last] of this.#sent) this.#sql.exec("DELETE FROM outbox WHERE queue = ? AND id <= ?", queue, last);
    this.#sent.clear();
  }

  /** Messages waiting for a queue (held answers not counted: they become messages when released). */
  size(): number {
    return this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM outbox WHERE queue != ?", HELD).one().n;
  }
}
