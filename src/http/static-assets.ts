import type { Context } from "hono";
import type { AppEnv } from "./app-env";
import { onNotFound } from "./errors";

/**
 * A path no route answers: a static file of public/ (the dashboard, the API reference's scripts) or
 * the JSON 404. The Worker runs before the assets (wrangler.toml `run_worker_first`) so that their
 * responses pass the app's middleware like any other and carry X-Request-Id; public/_headers still
 * sets their own headers. The asset's response is copied because a fetched one has immutable headers.
 */
export async function staticAssetOrNotFound(c: Context<AppEnv>): Promise<Response> {
  // (ASSETS is absent where a harness runs the Worker without its static files: the JSON 404 then.)
  if ((c.req.method === "GET" || c.req.method === "HEAD") && c.env.ASSETS) {
    const asset = await c.env.ASSETS.fetch(c.req.raw);
    if (asset.status !== 404) return new Response(asset.body, asset);
  }
  return onNotFound(c);
}
