import { createApp } from "./app";
import type { Env } from "./env";

export { TokenGate } from "./objects/token-gate";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
