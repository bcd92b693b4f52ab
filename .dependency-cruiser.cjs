/**
 * Dependency rules of the layers in docs/architecture.md, checked by `npm run deps` (part of npm test).
 * Type-only imports count (tsPreCompilationDeps): a layer may not even name the types of a layer above it.
 */
const SERVICE = "^src/(app|index|config|env)\\.ts$|^src/(routes|http|services|objects|queues|db|auth|rate-limits)/";

module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      severity: "error",
      comment:
        "No import cycles, type-only ones included. src/env.ts is exempt: the Worker's bindings name the Durable Object classes, which take the bindings as their env (the Workers pattern).",
      from: { pathNot: "^src/env\\.ts$" },
      to: { circular: true, viaOnly: { pathNot: "^src/env\\.ts$" } },
    },
    {
      name: "pure-model",
      severity: "error",
      comment:
        "The learner model is pure TypeScript: it imports nothing but itself (it runs in the Durable Object, in Node tests and in the offline evaluation).",
      from: { path: "^src/model/" },
      to: { pathNot: "^src/model/" },
    },
    {
      name: "pure-graphs",
      severity: "error",
      comment: "Graph algorithms and the runtime graph contract are pure: nothing of the service.",
      from: { path: "^src/graphs/" },
      to: { pathNot: "^src/graphs/" },
    },
    {
      name: "pure-tracing",
      severity: "error",
      comment: "Knowledge tracing with population-learned rates (evidence, episodes, beliefs, estimation) is pure: it builds on the model's math and lib only.",
      from: { path: "^src/tracing/" },
      to: { pathNot: "^src/(tracing|model|lib)/" },
    },
    {
      name: "pure-policy-and-analytics",
      severity: "error",
      comment: "Recommendation policy and analytics math are pure: they build on the model, knowledge tracing, graphs and the vocabulary only.",
      from: { path: "^src/(policy|analytics)/" },
      to: { pathNot: "^src/(model|graphs|domain|policy|analytics|tracing|lib)/" },
    },
    {
      name: "contract-below-service",
      severity: "error",
      comment: "The API contract (zod schemas, limits, vocabulary) and lib helpers sit below everything that serves requests.",
      from: { path: "^src/(domain|schemas|lib)/" },
      to: { path: SERVICE },
    },
    {
      name: "objects-not-http",
      severity: "error",
      comment: "Durable Objects own storage and concurrency; they do not import the HTTP layer or the routes.",
      from: { path: "^src/objects/" },
      to: { path: "^src/(routes|http)/" },
    },
    {
      name: "rate-limits-not-http",
      severity: "error",
      comment: "The rate-limit table and window algorithm are shared by the HTTP layer and the gates; they import neither.",
      from: { path: "^src/rate-limits/" },
      to: { path: "^src/(routes|http|services|objects)/" },
    },
    {
      name: "services-not-routes",
      severity: "error",
      comment: "Use cases do not know the routes that call them.",
      from: { path: "^src/(services|queues)/" },
      to: { path: "^src/routes/" },
    },
    {
      name: "http-not-routes",
      severity: "error",
      comment: "Cross-cutting HTTP plumbing does not import the resources it serves.",
      from: { path: "^src/http/" },
      to: { path: "^src/routes/" },
    },
    {
      name: "db-at-the-bottom",
      severity: "error",
      comment: "The D1 schema and query helpers import only the contract's types and pure graph types.",
      from: { path: "^src/db/" },
      to: { path: "^src/(routes|http|services|objects|queues)/" },
    },
    {
      name: "client-standalone",
      severity: "error",
      comment:
        "pathwise/client runs in Node, Workers and browsers apart from the service: it imports nothing of src/ but the rate-limit table (pure data, no imports). Its API types come from the OpenAPI document (client/schema.ts), not from the server's modules.",
      from: { path: "^client/" },
      to: { path: "^(src|test|scripts|bench|dashboard)/", pathNot: "^src/rate-limits/table\\.ts$" },
    },
    {
      name: "rate-limit-table-pure",
      severity: "error",
      comment: "The rate-limit table is bundled into the client: it imports nothing.",
      from: { path: "^src/rate-limits/table\\.ts$" },
      to: {},
    },
    {
      name: "dashboard-through-the-client",
      severity: "error",
      comment: "The dashboard is a browser page: it reads the API through pathwise/client only, never the service's modules.",
      from: { path: "^dashboard/" },
      to: { path: "^(src|test|scripts|bench)/" },
    },
    {
      name: "src-not-tools",
      severity: "error",
      comment: "The Worker never imports tests, scripts, benchmarks, the client or the dashboard.",
      from: { path: "^src/" },
      to: { path: "^(test|scripts|bench|client|dashboard)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^(node_modules|dist|\\.wrangler)/" },
  },
};
