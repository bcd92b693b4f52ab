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
  const instructor = await api(base, token, "POST", "/v0/accounts", { external_user_id: "demo-instructor" });
  const learners = [];
  for (const name of ["demo-learner-1", "demo-learner-2", "demo-learner-3"]) {
    learners.push(await api(base, token, "POST", "/v0/accounts", { external_user_id: name }));
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
  // A little history for the first learner, so the learner model has something to show.
  const minutes = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
  await api(base, token, "POST", `/v0/registrations/${registrations[0]}/batch-events`, {
    goal_id: goal.id,
    events: [
      { type: "graded-events", module_id: "mref-one-step-eq-q2", interaction_end_time: minutes(2), is_correct: true, is_complete: true, duration: 40_000 },
      { type: "graded-events", module_id: "mref-one-step-eq-q1", interaction_end_time: minutes(4), is_correct: false, is_complete: true, duration: 55_000 },
      { type: "ungraded-events", module_id: "mref-one-step-eq-lesson", interaction_end_time: minutes(10), is_complete: true, duration: 240_000 },
    ],
  });
  // A few days of work for the other two (the instructor dashboard's demo class): one strong, one struggling.
  const days = (d: number, m: number) => new Date(Date.now() - d * 86_400_000 - m * 60_000).toISOString();
  const session = (day: number, answers: [string, boolean][]) =>
    answers.map(([module_id, is_correct], i) => ({
      type: "graded-events",
      module_id,
      interaction_end_time: days(day, 60 - i * 4),
      is_correct,
      is_complete: true,
      duration: 45_000 + i * 5_000,
    }));
  const histories: [string, ReturnType<typeof session>][] = [
    [
      String(registrations[1]),
      [
        ...session(3, [
          ["mref-evaluate-expr-q1", true],
          ["mref-evaluate-expr-q2", true],
          ["mref-one-step-eq-q1", true],
          ["mref-one-step-eq-q2", true],
        ]),
        ...session(2, [
          ["mref-one-step-eq-q3", true],
          ["mref-two-step-eq-q1", false],
          ["mref-two-step-eq-q2", true],
          ["mref-two-step-eq-q3", true],
        ]),
        ...session(1, [
          ["mref-two-step-eq-q4", true],
          ["mref-two-step-eq-q1", true],
          ["mref-two-step-eq-review", true],
        ]),
      ],
    ],
    [
      String(registrations[2]),
      [
        ...session(4, [
          ["mref-one-step-eq-q1", false],
          ["mref-one-step-eq-q2", false],
          ["mref-one-step-eq-q1", true],
        ]),
        ...session(1, [
          ["mref-two-step-eq-q1", false],
          ["mref-two-step-eq-q2", false],
          ["mref-two-step-eq-q3", false],
          ["mref-two-step-eq-q1", false],
        ]),
      ],
    ],
  ];
  for (const [registration, events] of histories) {
    await api(base, token, "POST", `/v0/registrations/${registration}/batch-events`, { goal_id: goal.id, events: events.reverse() });
  }
  return {
    graph_id: graph.id,
    learning_instance_id: li.id,
    goal_id: goal.id,
    instructor_account_id: instructor.id,
    learner_registration_ids: registrations,
  };
}
