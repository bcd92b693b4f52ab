/**
 * The top of /v0/openapi.json (the operations come from the routes): what a partner's generator and
 * linters read first. docs/api-document.md says how the document is kept lint-clean.
 */
export const API_TAGS = [
  {
    name: "Authentication",
    description:
      "OAuth 2.0 access tokens: client credentials (HTTP Basic) for the partner admin or for an end user named by `scope`, and refresh tokens. Every other operation takes `Authorization: Bearer <token>`.",
  },
  { name: "Accounts", description: "Accounts are anonymized end users (learners and instructors), known by the partner's `external_user_id`." },
  { name: "Learning instances", description: "A learning instance is a course or class section teaching one knowledge graph." },
  { name: "Registrations", description: "A registration puts an account in a learning instance as a learner or an instructor; events and goals attach to it." },
  {
    name: "Events",
    description:
      "What learners do: answers (graded), work on instructional content (ungraded), followed recommendations. Stored durably and applied to the learner model before the answer.",
  },
  {
    name: "xAPI",
    description:
      "xAPI (Experience API 1.0.x) statements in: an existing xAPI emitter posts statements, which reach the learner model as graded and ungraded events (docs/xapi.md).",
  },
  { name: "Graphs", description: "Knowledge graphs: learning objectives, their prerequisites, and the modules (atoms) that teach and assess them." },
  { name: "Scoped goals", description: "What learners of an instance should reach, and which registrations each goal is assigned to." },
  { name: "Recommendations", description: "The modules a learner should work on next for an assigned goal." },
  {
    name: "Analytics",
    description: "Goal status and progress, proficiency, expected score, readiness, active time, learners to watch and predicted scores.",
  },
  {
    name: "Data lifecycle",
    description:
      "A student's data on request: erasure of an account or a learning instance with a receipt, export (JSON or xAPI statements), event retention, and the record of these requests (docs/privacy.md). Partner admin only.",
  },
];

export const apiDocument = {
  openapi: "3.1.0",
  info: {
    title: "Pathwise API",
    version: "0.1.0",
    description: [
      "Adaptive learning analytics and recommendations. Obtain a token with POST /v0/oauth/token, then send `Authorization: Bearer <token>`.",
      "Every refusal has the body `{code, message, error_id, details?}` (schema `Error`). Rate limits answer 429 with `Retry-After`; every limited response carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.",
    ].join("\n\n"),
    contact: { name: "Pathwise API support", email: "api-support@pathwise.example" },
    // Placeholder until the owners choose the terms (package.json is private): all rights reserved.
    license: { name: "Proprietary (all rights reserved)", identifier: "LicenseRef-Pathwise-Proprietary" },
  },
  servers: [
    { url: "http://localhost:8787", description: "Local development (`npm start`)" },
    {
      // A literal placeholder, not a server variable: swagger-cli's 3.1 validator refuses any
      // `variables` object (a bug of that tool; a partner's pipeline may still run it).
      url: "https://pathwise.your-subdomain.workers.dev",
      description: "A deployment on Cloudflare Workers (README: Deploying to Cloudflare); replace with your own hostname",
    },
  ],
  tags: API_TAGS,
};
