// The hello-world reference of the throughput benchmark (bench/throughput.ts): a Hono route
// answering {"ok":true}. Everything the service does beyond this is its own cost.
import { Hono } from "hono";

const app = new Hono();
app.get("/", (c) => c.json({ ok: true }));

export default app;
