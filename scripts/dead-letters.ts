// Operator command for queue messages that exhausted their retries (docs/analytics.md "Lost and poisoned messages").
//   npm run --silent dead-letters -- list   [--local|--remote] [--queue NAME]
//   npm run --silent dead-letters -- replay [--local|--remote] [--queue NAME] [--id ID]
// `list` prints the recorded dead letters as JSON lines; `replay` marks them for replay: the Worker's
// scheduled handler (every minute) sends them back to their queue and deletes them. The consumers are
// idempotent, so a replay never applies anything twice; a message that is malformed comes back.
import { parseArgs } from "node:util";
import { d1Execute, d1Query, sqlLiteral, type Target } from "./lib/wrangler";

function usage(message?: string): never {
  if (message) process.stderr.write(`${message}\n`);
  process.stderr.write("usage: npm run --silent dead-letters -- list|replay [--local|--remote] [--queue NAME] [--id ID]\n");
  process.exit(2);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { local: { type: "boolean" }, remote: { type: "boolean" }, queue: { type: "string" }, id: { type: "string" } },
});
const command = positionals[0];
if (command !== "list" && command !== "replay") usage();
if (values.local && values.remote) usage("choose one of --local and --remote");
const target: Target = values.remote ? "remote" : "local";
const filters = [values.queue ? `queue = ${sqlLiteral(values.queue)}` : "1 = 1", values.id ? `id = ${sqlLiteral(values.id)}` : "1 = 1"].join(" AND ");

if (command === "list") {
  const rows = d1Query(`SELECT id, queue, attempts, received_at, replay_requested_at, body FROM dead_letters WHERE ${filters} ORDER BY received_at`, target);
  for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
  process.stderr.write(`${rows.length} dead letter(s)\n`);
} else {
  d1Execute(`UPDATE dead_letters SET replay_requested_at = ${Date.now()} WHERE ${filters};`, target);
  process.stderr.write("marked for replay: the Worker sends them back to their queue within a minute\n");
}
