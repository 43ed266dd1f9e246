// sandbox-bank events: tails the live events (GET /sandbox/events, Server-Sent Events), one line per event,
// until interrupted (SIGINT: exit 0), --count events were printed, or the Bank ends the stream (exit 2).
import type { IncomingMessage } from 'node:http';
import { BANK_OPTIONS, JSON_OPTION, Parsed } from '../args';
import { BankApi, expectSuccess, unexpectedAnswer } from '../bank-api';
import { command } from '../command';
import { openRequest, parseJsonText, Unreachable } from '../http';
import { CliIo, EXIT, unavailable } from '../io';

export interface SseMessage {
  id: string | null;
  event: string | null;
  data: string;
}

/** Splits a growing SSE text into complete messages (comments and heartbeats dropped) and what remains. */
export function takeMessages(buffer: string): { messages: SseMessage[]; rest: string } {
  const blocks = buffer.replace(/\r\n/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  const messages: SseMessage[] = [];
  for (const block of blocks) {
    const message: SseMessage = { id: null, event: null, data: '' };
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':') || line === '') continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') message.id = value;
      else if (field === 'event') message.event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length === 0) continue;
    message.data = data.join('\n');
    messages.push(message);
  }
  return { messages, rest };
}

/** `2026-11-22T10:00:00.000Z  order.created  acme  reference=ORDER-1 status=PENDING ...` */
export function eventLine(message: SseMessage): string {
  const event = parseJsonText(message.data) as { at?: string; type?: string; client_id?: string | null; data?: Record<string, unknown> } | undefined;
  if (!event) return `${message.event ?? 'message'}  ${message.data}`;
  const details = Object.entries(event.data ?? {})
    .filter(([name]) => name !== 'client_id')
    .map(([name, value]) => `${name}=${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}`);
  return [event.at ?? '-', event.type ?? message.event ?? '-', event.client_id ?? '-', ...details].join('  ');
}

async function failedStream(response: IncomingMessage, url: URL): Promise<never> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  expectSuccess({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.from(text), text, json: parseJsonText(text), method: 'GET', url });
  throw unavailable(`GET /sandbox/events answered ${response.statusCode}`);
}

/** A 200 that is not an event stream (a wrong --bank): its first bytes, then exit 2. */
async function notAStream(response: IncomingMessage, url: URL, abort: () => void): Promise<never> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= 1024) break;
  }
  abort();
  const body = Buffer.concat(chunks);
  const text = body.toString('utf8');
  throw unexpectedAnswer({ status: response.statusCode ?? 0, headers: response.headers, body, text, json: undefined, method: 'GET', url }, 'an event stream (text/event-stream)');
}

function tail(parsed: Parsed, io: CliIo, response: IncomingMessage, abort: () => void): Promise<number> {
  const count = parsed.integer('count', 1, 1_000_000);
  let printed = 0;
  let buffer = '';
  return new Promise<number>((resolve) => {
    let stopped = false;
    const stop = (code: number) => {
      if (stopped) return;
      stopped = true;
      stopListening();
      abort();
      resolve(code);
    };
    const stopListening = io.onInterrupt(() => stop(EXIT.ok));
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      const { messages, rest } = takeMessages(buffer + chunk);
      buffer = rest;
      for (const message of messages) {
        if (stopped) return;
        io.stdout(`${parsed.flag('json') ? message.data : eventLine(message)}\n`);
        printed += 1;
        if (count !== undefined && printed >= count) return stop(EXIT.ok);
      }
    });
    const ended = () => {
      if (!stopped) io.stderr('the Bank ended the event stream\n');
      stop(EXIT.unavailable);
    };
    response.on('end', ended);
    response.on('error', ended);
    response.on('close', ended);
  });
}

export const eventsCommand = command(
  {
    name: 'events',
    summary: 'Tail the live events (GET /sandbox/events), one line per event, until Ctrl-C.',
    details: ['Event types: order.created, order.status_changed, callback.attempted, callback.delivered, callback.dead,', 'poll.completed, request.refused, clock.advanced, conformance.case_finished; stream.reset first when the Bank restarted on an', 'empty store since the id resumed from. --json prints each event as one JSON line.'],
    options: {
      client: { type: 'string', value: 'id', help: "only this client's events" },
      'last-event-id': { type: 'string', value: 'id', help: 'replay the events after this id first' },
      count: { type: 'string', value: 'n', help: 'stop after this many events (exit 0)' },
      ...BANK_OPTIONS,
      ...JSON_OPTION,
    },
    examples: ['sandbox-bank events --client acme', 'sandbox-bank events --json --last-event-id 0 | jq .'],
  },
  async (parsed, io) => {
    const api = BankApi.of(parsed, io);
    const lastEventId = parsed.integer('last-event-id', 0, 999_999_999);
    parsed.integer('count', 1, 1_000_000);
    const headers = { accept: 'text/event-stream', ...api.adminHeaders() };
    const url = api.url('/sandbox/events', { client_id: parsed.string('client'), last_event_id: lastEventId });
    const { response, abort } = openRequest({ method: 'GET', url, headers, timeoutMs: 0 });
    let res: IncomingMessage;
    try {
      res = await response;
    } catch (error) {
      if (error instanceof Unreachable) throw unavailable(`cannot reach the Bank at ${url.origin}: ${error.message}`);
      throw error;
    }
    if (res.statusCode !== 200) return failedStream(res, url);
    if (!/^text\/event-stream\b/i.test(res.headers['content-type'] ?? '')) return notAStream(res, url, abort);
    return tail(parsed, io, res, abort);
  },
);
