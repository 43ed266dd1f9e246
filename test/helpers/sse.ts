// Server-Sent Events as the tests read them off a socket: the complete messages of what has arrived so far.

/** One message: its id and event fields as sent, and its data line parsed as JSON. */
export interface SseMessage<T = unknown> {
  id: string | undefined;
  event: string | undefined;
  data: T;
}

/**
 * Splits the complete messages (each ends with a blank line) off `pending`; answers them, with the text left over
 * for the next chunk. A message without data (a heartbeat) is left out; each comment line goes to `onComment`.
 */
export function takeSseMessages<T>(pending: string, onComment: (text: string) => void = () => undefined): { messages: SseMessage<T>[]; rest: string } {
  const messages: SseMessage<T>[] = [];
  let rest = pending;
  let cut: number;
  while ((cut = rest.indexOf('\n\n')) >= 0) {
    const fields: Record<string, string> = {};
    for (const line of rest.slice(0, cut).split('\n')) {
      if (line.startsWith(':')) onComment(line.slice(1).trim());
      else {
        const colon = line.indexOf(':');
        fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
      }
    }
    rest = rest.slice(cut + 2);
    if (fields.data !== undefined) messages.push({ id: fields.id, event: fields.event, data: JSON.parse(fields.data) as T });
  }
  return { messages, rest };
}
