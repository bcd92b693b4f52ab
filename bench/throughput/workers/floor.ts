// The storage floor of the throughput benchmark (bench/throughput.ts, docs/performance.md "Floors"):
// a minimal Worker with the same kinds of bindings as the service (the service's D1 database, a
// Durable Object class with SQLite storage) that does only the storage round trips a scenario
// cannot avoid, each as cheap as it can be, and no validation, no model, no JSON beyond the
// answer. One route per floor:
//   GET  /account/{id}              one DO RPC doing one SQLite insert (the token check and count)
//                                   + one D1 primary-key read (the account)
//   POST /event/{registration}      that (registration instead of account) + one DO RPC doing one
//                                   SQLite transaction of one insert (the body as sent)
//   POST /token                     one D1 read (the client and the account) + one D1 batch of two
//                                   inserts (access and refresh token rows)
//   GET  /recommendation/{reg}      the account floor (registration instead of account) + one DO RPC
//                                   doing one SQLite read
//   POST /status (ids as JSON)      the token check + one D1 read of the page's registrations + one
//                                   DO RPC per registration doing one SQLite read
//   POST /score                     the token check + one D1 read of the accounts' projections
import { DurableObject } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  FLOOR: DurableObjectNamespace<FloorObject>;
}

export class FloorObject extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS hits (id INTEGER PRIMARY KEY AUTOINCREMENT, t INTEGER NOT NULL)");
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL)");
  }

  /** One SQLite insert (what a token gate does per request). */
  hit(t: number): boolean {
    this.ctx.storage.sql.exec("INSERT INTO hits (t) VALUES (?)", t);
    return true;
  }

  /** One SQLite transaction of one insert (an event log append). */
  append(body: string): number {
    this.ctx.storage.transactionSync(() => this.ctx.storage.sql.exec("INSERT INTO events (body) VALUES (?)", body));
    return 1;
  }

  /** One SQLite read (a stored state). */
  read(): number {
    return this.ctx.storage.sql.exec<{ n: number }>("SELECT max(seq) AS n FROM events").one().n ?? 0;
  }
}

const gate = (env: Env) => env.FLOOR.get(env.FLOOR.idFromName("token")).hit(Date.now());
const object = (env: Env, name: string) => env.FLOOR.get(env.FLOOR.idFromName(name));
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const [, route = "", id = ""] = url.pathname.split("/");
    switch (route) {
      case "account": {
        await gate(env);
        const row = await env.DB.prepare("SELECT id, external_user_id FROM accounts WHERE id = ?").bind(id).first();
        return row ? json(row) : json({ code: 404 }, 404);
      }
      case "event": {
        await gate(env);
        const row = await env.DB.prepare("SELECT id FROM registrations WHERE id = ?").bind(id).first();
        if (!row) return json({ code: 404 }, 404);
        await object(env, id).append(await request.text());
        return new Response(null, { status: 204 });
      }
      case "recommendation": {
        await gate(env);
        const row = await env.DB.prepare("SELECT id FROM registrations WHERE id = ?").bind(id).first();
        if (!row) return json({ code: 404 }, 404);
        return json({ seq: await object(env, id).read() });
      }
      case "status": {
        await gate(env);
        const ids = (await request.json()) as string[];
        const rows = await env.DB.prepare("SELECT id FROM registrations WHERE id IN (SELECT value FROM json_each(?))")
          .bind(JSON.stringify(ids))
          .all<{ id: string }>();
        const cells = await Promise.all(rows.results.map((r) => object(env, r.id).read()));
        return json({ data: cells });
      }
      case "score": {
        await gate(env);
        const { graph, accounts } = (await request.json()) as { graph: string; accounts: string[] };
        const rows = await env.DB.prepare(
          "SELECT account_id, body FROM account_projections WHERE graph_id = ? AND account_id IN (SELECT value FROM json_each(?))",
        )
          .bind(graph, JSON.stringify(accounts))
          .all();
        return json({ rows: rows.results.length });
      }
      case "token": {
        const clientId = request.headers.get("X-Client-Id") ?? "";
        const scope = url.searchParams.get("scope") ?? "";
        const row = await env.DB.prepare(
          "SELECT a.id AS account_id, p.id AS partner_id FROM partners p JOIN accounts a ON a.partner_id = p.id AND a.external_user_id = ? WHERE p.client_id = ?",
        )
          .bind(scope, clientId)
          .first<{ account_id: string; partner_id: string }>();
        if (!row) return json({ code: 401 }, 401);
        const now = Date.now();
        const jti = crypto.randomUUID();
        const refresh = crypto.randomUUID();
        await env.DB.batch([
          env.DB.prepare("INSERT INTO access_tokens (jti, account_id, expires_at) VALUES (?, ?, ?)").bind(jti, row.account_id, now + 3_600_000),
          env.DB.prepare("INSERT INTO refresh_tokens (token_hash, partner_id, account_id, expires_at, used_at, access_jti) VALUES (?, ?, ?, ?, NULL, ?)").bind(
            refresh,
            row.partner_id,
            row.account_id,
            now + 1_209_600_000,
            jti,
          ),
        ]);
        return json({ access_token: jti, refresh_token: refresh });
      }
      default:
        return json({ code: 404 }, 404);
    }
  },
};
