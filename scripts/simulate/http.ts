/**
 * Strategy A over HTTP: a TutorClient that drives a running Pathwise service through its public API
 * only (spec 4.5, 4.4, 4.6; tokens per spec 5 and docs/architecture.md "Tokens"), with the project's own
 * typed client (pathwise/client: tokens per scope, pacing by the RateLimit headers, 429s waited out
 * and the same request sent again, an Idempotency-Key on every event post).
 *
 * Per world: the world's graph (POST /v0/graphs, a label unique to the run), a learning instance and
 * the goal (POST .../scoped-goals), as the partner admin. Per student: an account, a learner
 * registration, the goal's assignment, and the student's own client (`as(external_user_id)`: an
 * end-user token, spec 5.8) for every tutoring call. With the spec's limits (15/min per token and
 * registration path) a student advances about 7 steps a minute; start the service with a raised
 * RATE_LIMIT_MULTIPLIER to go faster.
 */
import { createPathwiseClient, type PathwiseClient, type RequestBody } from "../../client";
import type { ClassFactory, StatusView, StudentSession } from "./class-run";
import type { TutorView } from "./strategies";
import { goalBody, graphDocument, type Student, type World } from "./world";

export interface Credentials {
  client_id: string;
  client_secret: string;
  /** the partner admin's external_user_id (the admin scope) */
  admin_external_user_id: string;
}

/** A failure of the service or the transport (not a refusal that waiting cures): the simulator stops. */
export class TransportError extends Error {}

export interface ApiStats {
  requests: number;
  /** 429 answers waited out */
  refused: number;
}

/** The partner admin's client, counting the requests it sends and the 429s it waits out. */
export function simulatorClient(base: string, credentials: Credentials): { api: PathwiseClient; stats: ApiStats } {
  const stats: ApiStats = { requests: 0, refused: 0 };
  const api = createPathwiseClient({
    baseUrl: base,
    credentials: { clientId: credentials.client_id, clientSecret: credentials.client_secret },
    scope: credentials.admin_external_user_id,
    fetch: async (request) => {
      stats.requests += 1;
      const response = await fetch(request, { signal: AbortSignal.timeout(120_000) });
      if (response.status === 429) stats.refused += 1;
      return response;
    },
  });
  return { api, stats };
}

export interface ProvisionedWorld {
  graphLabel: string;
  learningInstanceId: string;
  goalId: string;
}

/** The world's graph, a learning instance and the goal, created through the API under labels unique to the run. */
export async function provisionWorld(
  api: PathwiseClient,
  world: World,
  runId: string,
  behavior: "practice" | "introduce" | "review" = "practice",
): Promise<ProvisionedWorld> {
  const doc = graphDocument(world);
  const graphLabel = `${doc.label}-${runId}`;
  await api.POST("/v0/graphs", { body: { ...doc, label: graphLabel } as RequestBody<"post", "/v0/graphs"> });
  const li = await api.POST("/v0/learning-instances", {
    body: { graph_id: graphLabel, name: `Simulator ${world.params.objectives}/${world.seed} (${runId})` },
  });
  const goal = await api.POST("/v0/learning-instances/{id}/scoped-goals", {
    params: { path: { id: li.id } },
    body: goalBody(world, behavior) as RequestBody<"post", "/v0/learning-instances/{id}/scoped-goals">,
  });
  return { graphLabel, learningInstanceId: li.id, goalId: goal.id };
}

/**
 * Strategy A's client per student: provisions the student's account, registration, assignment and
 * end-user token, then asks for recommendations (with justifications), reads status and progress,
 * and posts each answer as a graded event (ungraded for instructional atoms), stamped with the real
 * time (strictly increasing per student).
 */
export function httpFactory(api: PathwiseClient, provisioned: ProvisionedWorld, runId: string) {
  const { learningInstanceId, goalId } = provisioned;
  return async (world: World, student: Student): Promise<StudentSession> => {
    const externalUserId = `sim-${runId}-${world.params.objectives}-${world.seed}-${student.index}`;
    const account = await api.POST("/v0/accounts", { body: { external_user_id: externalUserId } });
    const reg = await api.POST("/v0/registrations", { body: { account_id: account.id, learning_instance_id: learningInstanceId, type: "learner" } });
    await api.PUT("/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", {
      params: { path: { id: learningInstanceId, goal_id: goalId, registration_id: reg.id } },
    });
    const learner = api.as(externalUserId);
    const path = { id: reg.id };
    let clock = 0;
    const status = async (): Promise<StatusView> => {
      const table = await learner.POST("/v0/registrations/{id}/metrics/status-and-progress", { params: { path }, body: { goal_ids: [goalId] } });
      const st = table.data[0]?.status_and_progress[0];
      if (!st) throw new TransportError(`status-and-progress of ${reg.id}: no row`);
      return { status: st.status, progress: st.progress, workRemaining: st.work_remaining };
    };
    return {
      status,
      async view(): Promise<TutorView> {
        const read = async () => {
          const rec = await learner.GET("/v0/registrations/{id}/recommendation", { params: { path, query: { goal_id: goalId, justifications: "true" } } });
          return { rec, st: await status() };
        };
        let { rec, st } = await read();
        if (rec.status === "unfocused") throw new TransportError(`recommendation of ${reg.id}: the goal is not focused by the request`);
        // ready ⇔ complete holds for one parameter version; the population's rates may be refreshed
        // between the two requests (decisions, "Freshness"), so a disagreement is read again once.
        if ((rec.status === "ready") !== (st.status === "complete")) ({ rec, st } = await read());
        if ((rec.status === "ready") !== (st.status === "complete"))
          throw new TransportError(`registration ${reg.id}: recommendation ${rec.status} but status ${st.status}, read twice`);
        const top = rec.module_ids[0];
        const j = top === undefined ? undefined : rec.justifications?.[top];
        return {
          moduleIds: rec.module_ids,
          ready: rec.status === "ready",
          stuck: rec.stuck === true,
          workRemaining: st.workRemaining,
          status: st.status,
          progress: st.progress,
          current: j?.current_learning_objective_id,
          intent: j?.intent,
          remedial: j?.remedial,
        };
      },
      async send(moduleId, correct) {
        clock = Math.max(Date.now(), clock + 1);
        const event = { module_id: moduleId, interaction_end_time: new Date(clock).toISOString(), is_complete: true, goal_id: goalId };
        // (the client puts an Idempotency-Key on each post and keeps it across retries)
        if (correct === undefined) await learner.POST("/v0/registrations/{id}/ungraded-events", { params: { path }, body: event });
        else await learner.POST("/v0/registrations/{id}/graded-events", { params: { path }, body: { ...event, is_correct: correct } });
      },
    };
  };
}

/**
 * How long a finished class waits before its learners' status is read again: population parameters
 * are at most 60 s behind the class (docs/api-conventions.md "Freshness"), plus a margin.
 */
const SETTLE_MS = 70_000;

/**
 * A class over HTTP (class-run.ts): the world provisioned once per strategy (its own graph, so what
 * the service learns from A's class does not reach B's), every student a registration of it. The
 * service refreshes what it learns from the class on its own schedule (docs/api-conventions.md "Freshness").
 */
export function httpClass(api: PathwiseClient, runId: string): ClassFactory {
  return async (world, strategy) => {
    const run = `${runId}${strategy.toLowerCase()}`;
    const student = httpFactory(api, await provisionWorld(api, world, run), run);
    return { student: (s) => student(world, s), tick: async () => {}, settle: () => new Promise((done) => setTimeout(done, SETTLE_MS)) };
  };
}
