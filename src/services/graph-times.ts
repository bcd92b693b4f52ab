/**
 * GET /v0/graphs/{graph_id} says when the graph was created (`created_at`, as GET /v0/graphs does)
 * and when the version it answers was stored (`updated_at`). A version's stored document holds the
 * second as its `created_at` (the time it was written), so the graph's creation time is spliced into
 * the head of the text, keeping the answer free of a parse and re-serialization of a large document.
 * The head is `{"id":…,"label":…,"name":…,"version":N,"created_at":"<ISO>"` (graph-store.ts), and
 * `,"version":N,"created_at":"` cannot occur inside a JSON string (a quote in one is escaped), so
 * its first occurrence is the field.
 */
export function withGraphTimes(storedDocument: string, version: number, graphCreatedAtMs: number): string {
  const key = `,"version":${version},"created_at":"`;
  const at = storedDocument.indexOf(key);
  if (at < 0) throw new Error(`stored graph document of version ${version} has no created_at`);
  const start = at + key.length;
  const end = storedDocument.indexOf('"', start);
  const storedAt = storedDocument.slice(start, end);
  return `${storedDocument.slice(0, start)}${new Date(graphCreatedAtMs).toISOString()}","updated_at":"${storedAt}${storedDocument.slice(end)}`;
}
