/**
 * The student data lifecycle for the client (docs/privacy.md, docs/client.md): an erasure awaited
 * until its receipt is complete, and an export read as it streams (bytes to store, or the xAPI
 * statements one at a time, never the whole export in memory).
 */

/** How often the receipt is polled, and how long an erasure is awaited. */
export interface EraseOptions {
  /** default 1,000 ms (GET /v0/erasures/{id} allows 60 a minute per token) */
  pollIntervalMs?: number;
  /** default 10 minutes; then the erasure goes on on the service and the call rejects with its id */
  timeoutMs?: number;
}

/** Polls `read` until the receipt says complete. */
export async function awaitReceipt<R extends { status: string; erasure_id: string }>(read: () => Promise<R>, options: EraseOptions = {}): Promise<R> {
  const interval = options.pollIntervalMs ?? 1000;
  const deadline = Date.now() + (options.timeoutMs ?? 600_000);
  for (;;) {
    const receipt = await read();
    if (receipt.status === "complete") return receipt;
    if (Date.now() + interval > deadline) throw new Error(`erasure ${receipt.erasure_id} is still pending: poll GET /v0/erasures/${receipt.erasure_id}`);
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/** The chunks of a response body as they arrive. */
export async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) yield r.value;
  } finally {
    reader.releaseLock();
  }
}

/**
 * The elements of a JSON array arriving in chunks, parsed one at a time: only the element being read
 * is held, whatever the array's length. Tracks strings (and their escapes) and nesting to find where
 * each top-level element ends.
 */
export async function* jsonArrayElements(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let depth = 0;
  let inString = false;
  let escaped = false;
  let element = "";
  for await (const chunk of chunks) {
    const text = decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === "\\") escaped = true;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === "[" || c === "{") {
        depth++;
        if (depth === 1) start = i + 1;
      } else if (c === "]" || c === "}") depth--;
      if (depth === 1 && c === ",") {
        yield JSON.parse(element + text.slice(start, i));
        element = "";
        start = i + 1;
      } else if (depth === 0 && c === "]") {
        const last = (element + text.slice(start, i)).trim();
        if (last) yield JSON.parse(last);
        return;
      }
    }
    if (depth >= 1) element += text.slice(start);
  }
  throw new Error("the export ended before its closing bracket");
}
