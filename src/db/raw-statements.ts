/**
 * D1 statements as SQL text and bound values, run on the D1 binding itself (`db.$client`) instead
 * of built by drizzle per call: for the queue consumers' multi-row upserts drizzle's building cost
 * more CPU than anything else they do in JavaScript (docs/performance.md, seventh pass). The text is
 * the one drizzle writes for the same statement (tests compare them), built once per row count.
 */
export interface RawStatement {
  sql: string;
  params: (string | number | null)[];
}

/**
 * `insert into "table" ("a", "b") values (?, ?), (?, ?)…<tail>` for a number of rows: the text per
 * row count is built once. `tail` follows the rows as written (e.g. ` on conflict (…) do update set …`).
 */
export function multiRowInsert(table: string, columns: readonly string[], tail = ""): (rows: number) => string {
  const head = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) values `;
  const row = `(${columns.map(() => "?").join(", ")})`;
  const texts = new Map<number, string>();
  return (rows) => {
    let text = texts.get(rows);
    if (text === undefined) {
      text = head + Array.from({ length: rows }, () => row).join(", ") + tail;
      texts.set(rows, text);
    }
    return text;
  };
}

/** Runs the statements as one D1 batch (one transaction: all or none). */
export function runBatch(d1: D1Database, statements: readonly RawStatement[]): Promise<D1Result[]> {
  return d1.batch(statements.map((s) => d1.prepare(s.sql).bind(...s.params)));
}
