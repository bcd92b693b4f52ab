/**
 * Strategy A over HTTP: a TutorClient that drives a running Pathwise service through its public API
 * only (spec 4.5, 4.4, 4.6; tokens per spec 5 and decisions.md "Tokens").
 *
 * Per world: an admin token (client credentials), the world's graph (POST /v0/graphs, a label unique
 * to the run), a learning instance and the goal (POST .../scoped-goals). Per student: an account, a
 * learner registration, the goal's assignment, and an end-user token (scope = the account's
 * external_user_id, spec 5.8) used for every tutoring call of that student.
 *
 * Rate limits (spec 8): every response of a limited endpoint says how many requests are left in the
 * window (RateLimit-Remaining, RateLimit-Reset); the client waits for the window when none is left
 * and, on a 429, waits Retry-After and sends the same request again (a refused request was not
 * processed). With the spec's limits (15/min per token and registration path) a student advances
 * about 7 steps a minute; start the service with a raised RATE_LIMIT_MULTIPLIER to go faster.
 * Event posts carry an Idempotency-Key, so a request retried after a lost connection is applied once.
 */
import type { TutorClient, TutorFactory, TutorView } from "./strategies";
import { goalBody, graphDocument, type Student, type World } from "./world";

export interface Credentials {
  client_id: string;
  client_secret: string;
  /** the partner admin's external_user_id (the admin scope) */
  admin_external_user_id: string;
}

/** A failure of the service or the transport (not a refusal that waiting cures): the simulator stops. */
export class TransportError extends Error {}

interface Token {
  value: string;
  /** ms epoch */
  expiresAt: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ApiStats {
  requests: number;
  /** 429 answers waited out */
  refused: number;
  /** ms spent waiting for rate-limit windows (summed over concurrent students) */
  waitedMs: number;
}

export class HttpApi {
  readonly stats: ApiStats = { requests: 0, refused: 0, waitedMs: 0 };
  /** per (token, method, path): no request before this time (the window is used up) */
  private readonly windows = new Map<string, number>();
  private readonly tokens = new Map<string, Promise<Token>>();

  constructor(
    readonly base: string,
    readonly credentials: Credentials,
  ) {}

  /** An access token for `scope` (the admin scope or an end user's external_user_id), cached until shortly before it expires. */
  async token(scope: string = this.credentials.admin_external_user_id): Promise<string> {
    let t = this.tokens.get(scope);
    if (t) {
      const tok = await t.catch(() => undefined);
      if (tok && tok.expiresAt - Date.now() > 120_000) return tok.value;
    }
    t = this.fetchToken(scope);
    this.tokens.set(scope, t);
    t.catch(() => this.tokens.delete(scope));
    return (await t).value;
  }

  private async fetchToken(scope: string): Promise<Token> {
    const basic = Buffer.from(`${this.credentials.client_id}:${this.credentials.client_secret}`).toString("base64");
    const res = await this.send("POST", "/v0/oauth/token", "ip", {
      headers: { Authorization: `Basic ${basic}`, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "client_credentials", scope }).toString(),
    });
    if (res.status !== 200) throw new TransportError(`token for ${scope}: ${res.status} ${JSON.stringify(res.body)}`);
    const body = res.body as { access_token: string; expires_in: number };
    return { value: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 };
  }

  /**
   * A JSON call with a token of `scope` (admin by default); `expect` lists the statuses that are a
   * success. Anything else (after waiting out 429s and renewing an expired token once) is a TransportError.
   */
  async call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: { scope?: string; body?: unknown; expect?: number[]; headers?: Record<string, string> } = {},
  ): Promise<T> {
    const scope = options.scope ?? this.credentials.admin_external_user_id;
    const expect = options.expect ?? [200, 201, 204];
    for (let attempt = 0; ; attempt++) {
      const token = await this.token(scope);
      const res = await this.send(method, path, `${scope}`, {
        headers: {
          Authorization: `Bearer ${token}`,
          ...(options.body === undefined ? {} : { "Content-Type": "application/json" }),
          ...options.headers,
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      if (expect.includes(res.status)) return res.body as T;
      if (res.status === 401 && attempt === 0) {
        this.tokens.delete(scope); // expired or retired: one fresh token, then it is an error
        continue;
      }
      throw new TransportError(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    }
  }

  /**
   * One request, paced by the rate-limit headers of the previous answers on the same (token, method,
   * path) and retried after every 429 (the refused request was not processed) and, a few times, after
   * a network failure.
   */
  private async send(
    method: string,
    path: string,
    who: string,
    init: { headers: Record<string, string>; body?: string },
  ): Promise<{ status: number; body: unknown }> {
    const key = `${who} ${method} ${path.split("?")[0]}`;
    let networkFailures = 0;
    let refusals = 0;
    for (;;) {
      const until = this.windows.get(key) ?? 0;
      if (until > Date.now()) {
        const wait = until - Date.now();
        this.stats.waitedMs += wait;
        await sleep(wait);
      }
      let res: Response;
      try {
        this.stats.requests += 1;
        res = await fetch(`${this.base}${path}`, { method, headers: init.headers, body: init.body, signal: AbortSignal.timeout(120_000) });
      } catch (error) {
        if (++networkFailures > 3) throw new TransportError(`${method} ${path}: ${error instanceof Error ? error.message : String(error)}`);
        await sleep(500 * 2 ** networkFailures);
        continue;
      }
      const text = await res.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        /* not JSON */
      }
      const remaining = res.headers.get("RateLimit-Remaining");
      const reset = Number(res.headers.get("RateLimit-Reset") ?? "0");
      if (remaining === "0" && reset > 0) this.windows.set(key, Date.now() + reset * 1000);
      if (res.status === 429) {
        if (++refusals > 50) throw new TransportError(`${method} ${path}: still refused (429) after ${refusals - 1} waits`);
        this.stats.refused += 1;
        const wait = Math.max(1, Number(res.headers.get("Retry-After") ?? "1")) * 1000 + Math.floor(Math.random() * 250);
        this.windows.set(key, Date.now() + wait);
        continue;
      }
      return { status: res.status, body };
    }
  }
}

export interface ProvisionedWorld {
  graphLabel: string;
  learningInstanceId: string;
  goalId: string;
}

/** The world's graph, a learning instance and the goal, created through the API under labels unique to the run. */
export async function provisionWorld(
  api: HttpApi,
  world: World,
  runId: string,
  behavior: "practice" | "introduce" | "review" = "practice",
): Promise<ProvisionedWorld> {
  const doc = graphDocument(world);
  const graphLabel = `${doc.label}-${runId}`;
  await api.call("POST", "/v0/graphs", { body: { ...doc, label: graphLabel }, expect: [201] });
  const li = await api.call<{ id: string }>("POST", "/v0/learning-instances", {
    body: { graph_id: graphLabel, name: `Simulator ${world.params.objectives}/${world.seed} (${runId})` },
    expect: [201],
  });
  const goal = await api.call<{ id: string }>("POST", `/v0/learning-instances/${li.id}/scoped-goals`, { body: goalBody(world, behavior), expect: [201] });
  return { graphLabel, learningInstanceId: li.id, goalId: goal.id };
}

interface RecommendationBody {
  recommendation_id: number;
  module_ids: string[];
  status: "unfocused" | "in progress" | "ready";
  stuck?: boolean;
  justifications?: Record<string, { current_learning_objective_id: string; intent: string; remedial: boolean }>;
}

interface StatusBody {
  data: { status_and_progress: { status: string; progress: number; work_remaining: number }[] }[];
}

/**
 * Strategy A's client per student: provisions the student's account, registration, assignment and
 * end-user token, then asks for recommendations (with justifications), reads status and progress,
 * and posts each answer as a graded event (ungraded for instructional atoms), stamped with the real
 * time (strictly increasing per student).
 */
export function httpFactory(api: HttpApi, provisioned: ProvisionedWorld, runId: string): TutorFactory {
  const { learningInstanceId, goalId } = provisioned;
  return async (world: World, student: Student) => {
    const externalUserId = `sim-${runId}-${world.params.objectives}-${world.seed}-${student.index}`;
    const account = await api.call<{ id: string }>("POST", "/v0/accounts", { body: { external_user_id: externalUserId }, expect: [201] });
    const reg = await api.call<{ id: string }>("POST", "/v0/registrations", {
      body: { account_id: account.id, learning_instance_id: learningInstanceId, type: "learner" },
      expect: [201],
    });
    await api.call("PUT", `/v0/learning-instances/${learningInstanceId}/scoped-goals/${goalId}/registrations/${reg.id}`, { expect: [200] });
    const scope = externalUserId;
    let clock = 0;
    let events = 0;
    const client: TutorClient = {
      async view(): Promise<TutorView> {
        const rec = await api.call<RecommendationBody>("GET", `/v0/registrations/${reg.id}/recommendation?goal_id=${goalId}&justifications=true`, {
          scope,
          expect: [200],
        });
        const table = await api.call<StatusBody>("POST", `/v0/registrations/${reg.id}/metrics/status-and-progress`, {
          scope,
          body: { goal_ids: [goalId] },
          expect: [200],
        });
        const st = table.data[0]?.status_and_progress[0];
        if (!st) throw new TransportError(`status-and-progress of ${reg.id}: no row`);
        if (rec.status === "unfocused") throw new TransportError(`recommendation of ${reg.id}: the goal is not focused by the request`);
        if ((rec.status === "ready") !== (st.status === "complete"))
          throw new TransportError(`registration ${reg.id}: recommendation ${rec.status} but status ${st.status}`);
        const top = rec.module_ids[0];
        const j = top === undefined ? undefined : rec.justifications?.[top];
        return {
          moduleIds: rec.module_ids,
          ready: rec.status === "ready",
          stuck: rec.stuck === true,
          workRemaining: st.work_remaining,
          status: st.status,
          progress: st.progress,
          current: j?.current_learning_objective_id,
          intent: j?.intent,
          remedial: j?.remedial,
        };
      },
      async send(moduleId, correct) {
        clock = Math.max(Date.now(), clock + 1);
        events += 1;
        const body: Record<string, unknown> = {
          module_id: moduleId,
          interaction_end_time: new Date(clock).toISOString(),
          is_complete: true,
          goal_id: goalId,
        };
        if (correct !== undefined) body.is_correct = correct;
        await api.call("POST", `/v0/registrations/${reg.id}/${correct === undefined ? "ungraded-events" : "graded-events"}`, {
          scope,
          body,
          expect: [204],
          headers: { "Idempotency-Key": `${externalUserId}-${events}` },
        });
      },
    };
    return client;
  };
}
