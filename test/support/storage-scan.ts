import { env, listDurableObjectIds, runInDurableObject } from "cloudflare:test";

/**
 * Reads every stored byte a test can reach: every row of every D1 table, and the whole storage
 * (every SQLite table and every key-value entry) of every Durable Object of every namespace, and
 * reports where any of the given strings occurs (case-insensitive). The erasure tests use it to
 * prove that nothing naming an erased account or registration survived.
 */
export interface Finding {
  store: string;
  /** the D1 table, or the object's namespace, id and table/key */
  where: string;
  needle: string;
  text: string;
}

const internal = (name: string) => name.startsWith("_cf_") || name.startsWith("sqlite_");

function hits(store: string, where: string, text: string, needles: string[]): Finding[] {
  const lower = text.toLowerCase();
  return needles.filter((n) => lower.includes(n.toLowerCase())).map((needle) => ({ store, where, needle, text: text.slice(0, 300) }));
}

/** Every row of every D1 table (migration bookkeeping aside), as JSON text per row. */
export async function scanD1(needles: string[]): Promise<Finding[]> {
  const tables = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all<{ name: string }>();
  const findings: Finding[] = [];
  for (const { name } of tables.results) {
    if (internal(name) || name === "d1_migrations") continue;
    const rows = await env.DB.prepare(`SELECT * FROM "${name}"`).all<Record<string, unknown>>();
    for (const row of rows.results) findings.push(...hits("D1", name, JSON.stringify(row), needles));
  }
  return findings;
}

/** The D1 tables, so a test can say which it read. */
export async function d1Tables(): Promise<string[]> {
  const tables = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all<{ name: string }>();
  return tables.results.map((t) => t.name).filter((n) => !internal(n) && n !== "d1_migrations");
}

/** The storage of one object: every SQLite table's rows and every key-value entry, as text per row or entry. */
async function objectDump(stub: DurableObjectStub): Promise<{ where: string; text: string }[]> {
  return runInDurableObject(stub, (_instance: unknown, state: DurableObjectState) => {
    const out: { where: string; text: string }[] = [];
    const tables = state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").toArray();
    for (const { name } of tables) {
      if (internal(name)) continue;
      for (const row of state.storage.sql.exec(`SELECT * FROM "${name}"`)) out.push({ where: name, text: JSON.stringify(row) });
    }
    for (const [key, value] of state.storage.kv.list()) out.push({ where: `kv ${key}`, text: `${key} ${JSON.stringify(value)}` });
    return out;
  });
}

const NAMESPACES = { REGISTRATIONS: env.REGISTRATIONS, TOKEN_GATE: env.TOKEN_GATE, PARTNER_GATE: env.PARTNER_GATE, IP_GATE: env.IP_GATE } as unknown as Record<
  string,
  DurableObjectNamespace
>;

/** Every object of every namespace that has storage, read whole. `objects` counts the objects read. */
export async function scanObjects(needles: string[], only?: (id: DurableObjectId) => boolean): Promise<{ findings: Finding[]; objects: number }> {
  const findings: Finding[] = [];
  let objects = 0;
  for (const [name, namespace] of Object.entries(NAMESPACES)) {
    const ids = (await listDurableObjectIds(namespace)).filter((id) => !only || only(id));
    for (let i = 0; i < ids.length; i += 50) {
      const dumps = await Promise.all(ids.slice(i, i + 50).map((id) => objectDump(namespace.get(id))));
      dumps.forEach((dump, j) => {
        objects++;
        for (const d of dump) findings.push(...hits(name, `${ids[i + j]?.toString()} ${d.where}`, d.text, needles));
      });
    }
  }
  return { findings, objects };
}
