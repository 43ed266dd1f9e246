// Feeds the journal (application/journal.ts) from every inbound exchange, on both listeners and on every route:
// the signed flows, the token endpoint, health, /sandbox and what no route answers. It only keeps references to
// what the exchange holds anyway (header objects, the raw body, the response chunks) and hands them over when the
// answer has gone out; masking and writing happen later, off the request path.
//
// Cost (issue 15): nothing is made per request but the capture itself. The response's write and end are replaced
// by two shared functions that find the capture on the response and call the ones they replaced (kept in the
// capture), instead of two closures and two bound functions per request; the one close listener is a shared
// function too.
import type { Request, Response } from 'express';
import { performance } from 'node:perf_hooks';
import { Clock } from '../../wire/clock';
import { Journal, RESPONSE_CAPTURE_LIMIT } from '../application/journal';
import { Exchange } from './exchange';
import type { EarlyHook } from '../../wire/stable-shapes';
import { originForm, requestOrigin, requestPath } from '../../wire/http-edge';

type Writer = (...args: unknown[]) => unknown;

/** What is kept of one exchange while it runs, found on its response. */
interface Capture {
  journal: Journal;
  id: number;
  at: number;
  startedMs: number;
  chunks: Buffer[];
  captured: number;
  size: number;
  streaming: boolean | null;
  recorded: boolean;
  /** The response's write and end before the capture replaced them. */
  write: Writer;
  end: Writer;
}

const CAPTURE = Symbol('journal capture');

type Captured = Response & { [CAPTURE]?: Capture };

function decoded(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function keep(capture: Capture, res: Response, chunk: unknown, encoding: unknown): void {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
  const bytes = Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array);
  capture.size += bytes.length;
  capture.streaming ??= String(res.getHeader('content-type') ?? '').startsWith('text/event-stream');
  // An event stream never ends by itself: its size is counted, its content is the event log's.
  if (capture.streaming || capture.captured >= RESPONSE_CAPTURE_LIMIT) return;
  capture.chunks.push(bytes);
  capture.captured += bytes.length;
}

function capturedWrite(this: Captured, ...args: unknown[]): unknown {
  const capture = this[CAPTURE] as Capture;
  keep(capture, this, args[0], args[1]);
  return capture.write.apply(this, args);
}

function capturedEnd(this: Captured, ...args: unknown[]): unknown {
  const capture = this[CAPTURE] as Capture;
  keep(capture, this, args[0], args[1]);
  return capture.end.apply(this, args);
}

function record(res: Captured, complete: boolean): void {
  const capture = res[CAPTURE];
  if (!capture || capture.recorded) return;
  capture.recorded = true;
  const req = res.req as Request;
  const exchange = res.locals.exchange as Exchange | undefined;
  capture.journal.recordInbound({
    id: capture.id,
    at: capture.at,
    method: req.method,
    url: `${requestOrigin(req, 'localhost')}${originForm(req.originalUrl)}`,
    path: requestPath(req),
    requestHeaders: req.headers,
    requestBody: exchange?.rawBody ?? (Buffer.isBuffer(req.body) ? (req.body as Buffer) : null),
    bodyReferences: exchange?.references ?? null,
    status: res.statusCode,
    responseHeaders: res.getHeaders(),
    responseChunks: capture.chunks,
    responseSize: capture.size,
    latencyMs: performance.now() - capture.startedMs,
    code: (res.locals.problemCode as string | undefined) ?? null,
    clientId: exchange?.client?.id ?? null,
    requestId: (res.locals.requestId as string | undefined) ?? null,
    orderId: decoded(res.locals.rawOrderId),
    fault: (res.locals.fault as string | undefined) ?? null,
    error: complete || capture.streaming ? null : 'the connection closed before the answer was complete',
  });
}

// 'close' follows every response, after 'finish' when the answer went out whole (node 20: resOnFinish emits it on
// keep-alive connections too), so one listener tells both cases apart.
function closed(this: Captured): void {
  record(this, this.writableFinished);
}

/**
 * Starts the capture of an exchange; runs before express sees the request (stable-shapes.ts), so that the
 * properties it adds to the response are created before express swaps the response's prototype.
 */
export function journalCapture(journal: Journal, clock: Clock): EarlyHook {
  return (_req, res) => {
    if (!journal.enabled) return;
    const id = journal.reserveId();
    (res as Captured).locals.journalId = id;
    const writer = res as unknown as { write: Writer; end: Writer };
    (res as Captured)[CAPTURE] = {
      journal, id, at: clock.now(), startedMs: performance.now(), chunks: [], captured: 0, size: 0, streaming: null, recorded: false, write: writer.write, end: writer.end,
    };
    writer.write = capturedWrite;
    writer.end = capturedEnd;
    res.on('close', closed);
  };
}
