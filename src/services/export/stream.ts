/** How an export's stream ended: every byte handed over, the service failed, or the client went away. */
export type StreamEnd = "complete" | "failed" | "cancelled";

/**
 * The chunks of `source` as a byte stream, produced only as fast as the client reads (pull): an
 * export never holds more than the chunk in hand. `onEnd` is told how it ended and how many bytes
 * were sent (the record of data requests keeps both).
 */
export function byteStream(source: AsyncGenerator<string>, onEnd: (end: StreamEnd, bytes: number) => Promise<void>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let bytes = 0;
  let ended = false;
  const end = async (how: StreamEnd) => {
    if (ended) return;
    ended = true;
    await onEnd(how, bytes);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await source.next();
        if (next.done) {
          await end("complete");
          controller.close();
          return;
        }
        const chunk = encoder.encode(next.value);
        bytes += chunk.byteLength;
        controller.enqueue(chunk);
      } catch (error) {
        console.error(JSON.stringify({ export: "failed mid-stream", error: String(error) }));
        await end("failed");
        controller.error(error);
      }
    },
    async cancel() {
      await source.return(undefined);
      await end("cancelled");
    },
  });
}
