import type { ErrorDetail } from "../../schemas/common";
import type { EventInput } from "./rpc";

/**
 * The xAPI statement ids this registration has stored (docs/xapi.md): kept for good, not 24 hours
 * like Idempotency-Keys, because xAPI makes a statement id the statement's identity. A statement
 * sent again (same id, same content) is skipped; the same id with other content is a conflict.
 * Written in the transaction that stores the statement's event, so "stored" and "recorded" agree.
 */
export class StatementRecords {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** The events still to store (statements not stored yet, and events that are not statements) and the conflicts. */
  screen(events: EventInput[]): { fresh: EventInput[]; conflicts: ErrorDetail[] } {
    const fresh: EventInput[] = [];
    const conflicts: ErrorDetail[] = [];
    for (const event of events) {
      if (!event.statement) {
        fresh.push(event);
        continue;
      }
      const stored = this.#sql.exec<{ fingerprint: string }>("SELECT fingerprint FROM xapi_statements WHERE id = ?", event.statement.id).toArray()[0];
      if (!stored) fresh.push(event);
      else if (stored.fingerprint !== event.statement.fingerprint) {
        conflicts.push({ path: event.path.replace(/object\.id$/, "id"), message: `statement ${event.statement.id} was already stored with different content` });
      }
    }
    return { fresh, conflicts };
  }

  /** Records the stored events' statement ids (inside the caller's transaction). */
  record(events: EventInput[], nowMs: number): void {
    for (const event of events) {
      if (event.statement)
        this.#sql.exec("INSERT INTO xapi_statements (id, fingerprint, stored_at) VALUES (?, ?, ?)", event.statement.id, event.statement.fingerprint, nowMs);
    }
  }
}
