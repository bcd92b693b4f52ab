import type { LocalService } from "../../scripts/lib/local-service";

/** JSON call with the bench's token; throws on an unexpected status. */
export async function api(service: LocalService, method: string, path: string, body?: unknown, expect = [200, 201, 204]): Promise<any> {
  const res = await fetch(`${service.base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${service.adminToken}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!expect.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))));
  return sorted[i] as number;
}
