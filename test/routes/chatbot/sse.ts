/** One Server-Sent Event as a client reads it: its name and its data, parsed as JSON. */
export interface ReadEvent {
  event: string;
  data: unknown;
}

/** Splits a text/event-stream body into its events (each `event:` and one `data:` line). */
export function parseEvents(body: string): ReadEvent[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const field = (name: string) => lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
      return { event: field('event') ?? 'message', data: JSON.parse(field('data') ?? 'null') as unknown };
    });
}

/** Reads a fetch body's events as they arrive, until `stop` says enough (then the caller may abort). */
export async function readEvents(
  body: ReadableStream<Uint8Array>,
  stop: (events: ReadEvent[]) => boolean = () => false,
): Promise<ReadEvent[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (value) text += decoder.decode(value, { stream: true });
    const complete = text.slice(0, text.lastIndexOf('\n\n') + 2);
    const events = parseEvents(complete);
    if (done || stop(events)) {
      reader.releaseLock();
      return events;
    }
  }
}
