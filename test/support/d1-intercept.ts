/**
 * A D1Database stand-in that runs every statement on the real database but lets a test act first:
 * `before(sql)` is awaited before each statement (for a batch: before the batch, once per statement
 * in it) and may run other work (a racing request) or throw (a failing database). No production
 * code knows about it: tests hand it to the app as `{ ...env, DB: intercepted }` or to services.
 */
export interface D1Interceptor {
  /** called before each statement executes; throw to make that statement (and its batch) fail */
  before?(sql: string, inBatch: boolean): void | Promise<void>;
  /**
   * Called with the statements of a batch: return an index to have a statement that fails inserted
   * there, so the real D1 runs the statements before it and then fails inside the transaction.
   */
  failBatchAt?(sqls: string[]): number | undefined;
}

/** A statement D1 accepts for preparing and fails when run (the table does not exist). */
const FAILING_SQL = "INSERT INTO injected_failure_no_such_table VALUES (1)";

const wrappedStatements = new WeakMap<object, { statement: D1PreparedStatement; sql: string }>();

function wrapStatement(statement: D1PreparedStatement, sql: string, hook: D1Interceptor): D1PreparedStatement {
  const wrapped = {
    bind: (...values: unknown[]) => wrapStatement(statement.bind(...values), sql, hook),
    first: async (column?: string) => {
      await hook.before?.(sql, false);
      return column === undefined ? statement.first() : statement.first(column);
    },
    run: async () => {
      await hook.before?.(sql, false);
      return statement.run();
    },
    all: async () => {
      await hook.before?.(sql, false);
      return statement.all();
    },
    raw: async (options?: { columnNames?: boolean }) => {
      await hook.before?.(sql, false);
      return options?.columnNames ? statement.raw({ columnNames: true }) : statement.raw();
    },
  };
  wrappedStatements.set(wrapped, { statement, sql });
  return wrapped as unknown as D1PreparedStatement;
}

export function interceptD1(db: D1Database, hook: D1Interceptor): D1Database {
  const intercepted = {
    prepare: (sql: string) => wrapStatement(db.prepare(sql), sql, hook),
    async batch(statements: D1PreparedStatement[]) {
      const unwrapped = statements.map((s) => wrappedStatements.get(s) ?? { statement: s, sql: "(unknown statement)" });
      for (const { sql } of unwrapped) await hook.before?.(sql, true);
      const real = unwrapped.map((u) => u.statement);
      const at = hook.failBatchAt?.(unwrapped.map((u) => u.sql));
      if (at !== undefined) real.splice(at, 0, db.prepare(FAILING_SQL));
      return db.batch(real);
    },
    exec: (query: string) => db.exec(query),
    dump: () => db.dump(),
    withSession: () => {
      throw new Error("withSession is not intercepted");
    },
  };
  return intercepted as unknown as D1Database;
}
