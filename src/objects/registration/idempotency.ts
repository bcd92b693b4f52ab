import type { IngestOutcome, IngestRequest } from "./rpc";

/** How long a key's first outcome is kept (docs/api-conventions.md "Events"). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/**
 * Idempotency-Key records of one registration: the first outcome of each key for 24 hours, with a
 * fingerprint of the request so a key reused for a different request can be told apart.
 */
export class IdempotencyRecords {
  readonly #sql: SqlStorage;
  /** records written by this instance (the only writer of its storage): a look-up can tell whether any was written since */
  #written = 0;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /**
   * The first outcome for a repeated key, or a 422 when the key comes back with a different request
   * (answering 204 there would claim events were stored that were not); undefined for a new key.
   */
  outcomeFor(key: string, fingerprint: string, nowMs: number): IngestOutcome | undefined {
    const previous = this.#sql
      .exec<{ outcome: string; fingerprint: string | null }>(
        "SELECT outcome, fingerprint FROM idempotency WHERE key = ? AND created_at > ?",
        key,
        nowMs - IDEMPOTENCY_TTL_MS,
      )
      .toArray()[0];
    if (!previous) return undefined;
    // Records from before fingerprints were kept (schema v2) have none: they replay.
    if (previous.fingerprint !== null && previous.fingerprint !== fingerprint) {
      return {
        ok: false,
        status: 422,
        message: "This Idempotency-Key was already used for a different request; use a new key for new events.",
        details: [{ path: "header.idempotency-key", message: "reused with a different body" }],
        replayed: false,
      };
    }
    return { ...(JSON.parse(previous.outcome) as IngestOutcome), replayed: true };
  }

  /** A mark to pass to `outcomeSince`. */
  mark(): number {
    return this.#written;
  }

  /**
   * `outcomeFor` again after awaits, when `outcomeFor` found nothing at `mark`: with no record written
   * since, nothing can have changed, and the second look-up is skipped (one query per event post).
   */
  outcomeSince(mark: number, key: string, fingerprint: string, nowMs: number): IngestOutcome | undefined {
    return this.#written === mark ? undefined : this.outcomeFor(key, fingerprint, nowMs);
  }

  /** Records the key's outcome (inside the caller's transaction) and drops records older than the TTL. */
  record(key: string, outcome: IngestOutcome, fingerprint: string, nowMs: number): void {
    this.#written += 1;
    this.#sql.exec("DELETE FROM idempotency WHERE created_at <= ?", nowMs - IDEMPOTENCY_TTL_MS);
    this.#sql.exec(
      "INSERT OR REPLACE INTO idempotency (key, outcome, created_at, fingerprint) VALUES (?, ?, ?, ?)",
      key,
      JSON.stringify(outcome),
      nowMs,
      fingerprint,
    );
  }
}

/** SHA-256 of what the request asks to store, so a reused Idempotency-Key can be told apart. */
export async function fingerprintOf(request: IngestRequest): Promise<string> {
  const text = JSON.stringify({ events: request.events, focus: request.focusGoalId ?? null, ignore: request.ignoreInvalidModuleIds });
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
