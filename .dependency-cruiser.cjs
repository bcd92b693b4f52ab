/**
 * Dependency rules of the layers in docs/architecture.md, checked by `npm run deps` (part of npm test).
 * Type-only imports count (tsPreCompilationDeps): a layer may not even name the types of a layer above it.
 */
const SERVICE = "^src/(app|index|config|env)\\.ts$|^src/(routes|http|services|objects|queues|reads|db|auth|rate-limits)/";
/** The Durable Object classes: src/env.ts names each in its binding's type, and each takes the bindings as its env. */
const OBJECT_CLASSES = "^src/objects/(token-gate|ip-gate|partner-gate|registration/registration-object)\\.ts$";
/** The Durable Objects the HTTP layer calls (protect, the IP limit); their answers' types are named in src/http. */
const GATES_CALLED_BY_HTTP = "^src/objects/(token-gate|ip-gate)\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      severity: "error",
      comment:
        "No import cycles, type-only ones included: a module in any loop is reported, wherever the loop goes (through src/env.ts too). The Durable Objects' modules and src/env.ts are checked by the three rules below, which allow the one loop the Workers pattern needs and nothing else.",
      from: { pathNot: "^src/(env\\.ts|objects/)" },
      to: { circular: true },
    },
    {
      name: "no-cycles-among-objects",
      severity: "error",
      comment:
        "No loop among the Durable Objects' modules. The one loop allowed is src/env.ts <-> a class (env.ts names the class in DurableObjectNamespace<Class>, the class takes Env as its bindings), and since only the classes import env.ts (next rule), any other loop through env.ts passes an edge between two object modules and is reported here.",
      from: { path: "^src/objects/" },
      to: { path: "^src/objects/", circular: true },
    },
    {
      name: "bindings-in-object-classes-only",
      severity: "error",
      comment:
        "Of the Durable Objects' modules only the classes import src/env.ts (the Worker's bindings, their env); their helpers get the bindings they use as arguments. This keeps the env.ts loop at two files, so no-cycles-among-objects sees every other one.",
      from: { path: "^src/objects/", pathNot: OBJECT_CLASSES },
      to: { path: "^src/env\\.ts$" },
    },
    {
      name: "env-names-types-only",
      severity: "error",
      comment:
        "src/env.ts declares the bindings' types: every import it makes is type-only, so its loop with each Durable Object class (the Workers pattern) carries no code.",
      from: { path: "^src/env\\.ts$" },
      to: { dependencyTypesNot: ["type-only"] },
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
      name: "objects-below-services",
      severity: "error",
      comment:
        "Durable Objects own storage and concurrency and sit below the use cases: they read D1 through src/reads (as the services do), never through a service, and import neither the HTTP layer, the routes, nor the queue consumers. The queue message types they send are src/queues/messages.ts.",
      from: { path: "^src/objects/" },
      to: { path: "^src/(routes|http|services|queues)/|^src/(app|index|config)\\.ts$", pathNot: "^src/queues/messages\\.ts$" },
    },
    {
      name: "rate-limits-not-http",
      severity: "error",
      comment: "The rate-limit table and window algorithm are shared by the HTTP layer and the gates; they import neither.",
      from: { path: "^src/rate-limits/" },
      to: { path: "^src/(routes|http|services|objects)/" },
    },
    {
      name: "services-not-http",
      severity: "error",
      comment:
        "Use cases know neither the routes that call them nor the HTTP layer: they throw the errors of src/errors.ts, which the HTTP layer renders (src/http/errors.ts).",
      from: { path: "^src/(services|queues)/" },
      to: { path: "^src/(routes|http)/" },
    },
    {
      name: "http-not-routes",
      severity: "error",
      comment: "Cross-cutting HTTP plumbing does not import the resources it serves.",
      from: { path: "^src/http/" },
      to: { path: "^src/routes/" },
    },
    {
      name: "http-not-services",
      severity: "error",
      comment:
        "The HTTP plumbing (authentication, validation, rate limits, error rendering) loads no resource: handlers load theirs through the services and authorize the caller on them (src/routes/authorize.ts).",
      from: { path: "^src/http/" },
      to: { path: "^src/(services|queues)/" },
    },
    {
      name: "http-not-objects",
      severity: "error",
      comment:
        "The HTTP plumbing calls two Durable Objects, the gates (TokenGate, IpGate), and names their answers' types; it depends on no other object module (the RegistrationObject's are reached through the services, and change with its storage). What an object and the HTTP layer both need, such as the message an object's error keeps across RPC, lives below both: src/errors.ts.",
      from: { path: "^src/http/" },
      to: { path: "^src/objects/", pathNot: GATES_CALLED_BY_HTTP },
    },
    {
      name: "http-names-gate-types-only",
      severity: "error",
      comment: "The HTTP layer reaches the gates through their bindings (src/env.ts): of their modules it imports types only, never the classes' code.",
      from: { path: "^src/http/" },
      to: { path: GATES_CALLED_BY_HTTP, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "reads-below-services",
      severity: "error",
      comment:
        "The shared D1 reads (src/reads: graph versions, item parameters, population rates, live goals, with their isolate caches) serve both the services and the Durable Objects, so they import neither: only the D1 layer and the pure layers.",
      from: { path: "^src/reads/" },
      to: { path: SERVICE, pathNot: "^src/(reads|db)/" },
    },
    {
      name: "errors-at-the-bottom",
      severity: "error",
      comment: "ApiError (src/errors.ts) is thrown by services, routes and the HTTP layer alike: it imports none of them.",
      from: { path: "^src/errors\\.ts$" },
      to: { path: SERVICE },
    },
    {
      name: "queue-messages-pure",
      severity: "error",
      comment:
        "The queue message types are named by src/env.ts, the Durable Objects, the services and the consumers: they import only pure types, so naming them pulls in no layer (and no loop).",
      from: { path: "^src/queues/messages\\.ts$" },
      to: { pathNot: "^src/(model|graphs|domain|schemas|analytics|tracing|lib)/" },
    },
    {
      name: "db-at-the-bottom",
      severity: "error",
      comment: "The D1 schema and query helpers import only the contract's types and pure graph types.",
      from: { path: "^src/db/" },
      to: { path: "^src/(routes|http|services|objects|queues|reads)/" },
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
