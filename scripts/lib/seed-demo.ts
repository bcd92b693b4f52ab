// Demo data created through the public API on first `npm start`, so a newcomer can call every endpoint.
import { readFileSync } from "node:fs";
import type { PartnerCredentials } from "../../src/services/partners";

const SAMPLE_GRAPH = new URL("../../samples/pre-algebra/graph.json", import.meta.url);

async function api(base: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json ?? {};
}

/** The demo class's instructor (external_user_id): the account the dashboard link acts for. */
export const DEMO_INSTRUCTOR = "demo-instructor";

/** /dashboard?instance=<the demo class>#token=<a new token of the demo instructor> (docs/dashboard.md). */
export async function dashboardLink(base: string, c: PartnerCredentials, seeded: Record<string, unknown>): Promise<string> {
  return `${base}/dashboard?instance=${seeded.learning_instance_id}#token=${await tokenFor(base, c, DEMO_INSTRUCTOR)}`;
}

export async function tokenFor(base: string, c: PartnerCredentials, scope: string): Promise<string> {
  const res = await fetch(`${base}/v0/oauth/token`, {
    method: "POST",
    headers: { Authorization: `Basic ${btoa(`${c.client_id}:${c.client_secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", scope }),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`token: ${res.status} ${JSON.stringify(json)}`);
  return json.access_token as string;
}

export async function seedDemo(base: string, c: PartnerCredentials): Promise<Record<string, unknown>> {
  const token = await tokenFor(base, c, c.admin_external_user_id);
  const graph = await api(base, token, "POST", "/v0/graphs", JSON.parse(readFileSync(SAMPLE_GRAPH, "utf8")));
  const instructor = await api(base, token, "POST", "/v0/accounts", { external_user_id: DEMO_INSTRUCTOR });
  const learners = [];
  for (let i = 1; i <= DEMO_CLASS.length; i++) {
    learners.push(await api(base, token, "POST", "/v0/accounts", { external_user_id: `demo-learner-${i}` }));
  }
  const li = await api(base, token, "POST", "/v0/learning-instances", { graph_id: "gref-pre-algebra", name: "Pre-algebra (demo)" });
  await api(base, token, "POST", "/v0/registrations", { account_id: instructor.id, learning_instance_id: li.id, type: "instructor" });
  const registrations = [];
  for (const learner of learners) {
    registrations.push((await api(base, token, "POST", "/v0/registrations", { account_id: learner.id, learning_instance_id: li.id, type: "learner" })).id);
  }
  const goal = await api(base, token, "POST", `/v0/learning-instances/${li.id}/scoped-goals`, {
    name: "Unit 3: solving equations",
    adaptive_behavior: "practice",
    targets: { include: ["lref-two-step-eq"] },
    scope: { remediation_depth: "two" },
    completion_criteria: { min_predicted_mastery: 0.8, min_work_per_target: 3 },
    timing: { relative_deadline: "P2W" },
    config: { assign_to: "learners" },
  });
  for (const [i, profile] of DEMO_CLASS.entries()) {
    const events = historyOf(profile);
    if (events.length) await api(base, token, "POST", `/v0/registrations/${registrations[i]}/batch-events`, { goal_id: goal.id, events });
  }
  return {
    graph_id: graph.id,
    learning_instance_id: li.id,
    goal_id: goal.id,
    instructor_account_id: instructor.id,
    learner_registration_ids: registrations,
  };
}

/** One learner of the demo class: their sessions, `daysAgo` each, answers in order ([module, right?]). */
type Session = { daysAgo: number; answers: [string, boolean][]; lesson?: string };
type Profile = { sessions: Session[] };

const q = (objective: string, n: number) => `mref-${objective}-q${n}`;
const right = (objective: string, ...ns: number[]): [string, boolean][] => ns.map((n) => [q(objective, n), true]);
const wrong = (objective: string, ...ns: number[]): [string, boolean][] => ns.map((n) => [q(objective, n), false]);

/**
 * The instructor dashboard's demo class, varied enough that every part of the page has something
 * to show: a learner who just began, one who finished, one who struggles, one who is stuck on
 * two-step equations, one who stopped coming, one who never started, and two steady ones.
 */
const DEMO_CLASS: Profile[] = [
  { sessions: [{ daysAgo: 0, lesson: "mref-one-step-eq-lesson", answers: [...wrong("one-step-eq", 1), ...right("one-step-eq", 2)] }] },
  {
    sessions: [
      { daysAgo: 3, answers: [...right("evaluate-expr", 1, 2), ...right("one-step-eq", 1, 2)] },
      { daysAgo: 2, answers: [...right("one-step-eq", 3), ...wrong("two-step-eq", 1), ...right("two-step-eq", 2, 3)] },
      { daysAgo: 1, answers: [...right("two-step-eq", 4, 1), ["mref-two-step-eq-review", true]] },
    ],
  },
  {
    sessions: [
      { daysAgo: 4, answers: [...wrong("one-step-eq", 1, 2), ...right("one-step-eq", 1)] },
      { daysAgo: 1, answers: wrong("two-step-eq", 1, 2, 3, 1) },
    ],
  },
  {
    sessions: [
      { daysAgo: 2, lesson: "mref-two-step-eq-lesson", answers: [...right("one-step-eq", 1, 2, 3), ...wrong("two-step-eq", 1, 2, 3, 4)] },
      { daysAgo: 1, answers: [...wrong("two-step-eq", 1, 2), ...right("two-step-eq", 3), ...wrong("two-step-eq", 4, 1, 2, 3)] },
      { daysAgo: 0, answers: wrong("two-step-eq", 4, 1, 2) },
    ],
  },
  { sessions: [{ daysAgo: 10, answers: [...right("evaluate-expr", 1), ...wrong("one-step-eq", 1), ...right("one-step-eq", 2)] }] },
  { sessions: [] },
  {
    sessions: [
      { daysAgo: 5, answers: [...right("evaluate-expr", 1), ...right("one-step-eq", 1), ...wrong("one-step-eq", 2), ...right("one-step-eq", 3)] },
      { daysAgo: 3, answers: [...right("one-step-eq", 2), ...wrong("two-step-eq", 1), ...right("two-step-eq", 2)] },
      { daysAgo: 0, answers: [...right("two-step-eq", 3), ...wrong("two-step-eq", 4)] },
    ],
  },
  {
    sessions: [
      { daysAgo: 6, lesson: "mref-one-step-eq-lesson", answers: [...right("one-step-eq", 1, 2)] },
      { daysAgo: 2, answers: [...right("one-step-eq", 3), ...right("two-step-eq", 1)] },
    ],
  },
];

/** A profile's events, newest first (the batch order of the spec), timed back from now. */
function historyOf(profile: Profile): Record<string, unknown>[] {
  const at = (daysAgo: number, minute: number) => new Date(Date.now() - daysAgo * 86_400_000 - (90 - minute) * 60_000).toISOString();
  const events: Record<string, unknown>[] = [];
  for (const { daysAgo, answers, lesson } of profile.sessions) {
    if (lesson) {
      events.push({ type: "ungraded-events", module_id: lesson, interaction_end_time: at(daysAgo, 5), is_complete: true, duration: 300_000 });
    }
    for (const [i, [module_id, is_correct]] of answers.entries()) {
      events.push({
        type: "graded-events",
        module_id,
        interaction_end_time: at(daysAgo, 10 + 3 * i),
        is_correct,
        is_complete: true,
        duration: 45_000 + i * 5_000,
      });
    }
  }
  return events.reverse();
}
