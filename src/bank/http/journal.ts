// Feeds the journal (application/journal.ts) from every inbound exchange, on both listeners and on every route:
// the signed flows, the token endpoint, health, /sandbox and what no route answers. It only keeps references to
// what the exchange holds anyway (header objects, the raw body, the response chunks) and hands them over when the
// answer has gone out; masking and writing happen later, off the request path.
import type { NextFunction, Request, Response } from 'express';
import { Clock } from '../../wire/clock';
import { Journal, RESPONSE_CAPTURE_LIMIT } from '../application/journal';
import { Exchange } from './exchange';

type Writer = (...args: unknown[]) => unknown;

function decoded(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export function journalRecorder(journal: Journal, clock: Clock) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!journal.enabled) return next();
    const id = journal.reserveId();
    res.locals.journalId = id;
    const at = clock.now();
    const started = process.hrtime.bigint();
    const chunks: Buffer[] = [];
    let captured = 0;
    let size = 0;
    let streaming: boolean | null = null;
    const keep = (chunk: unknown, encoding: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      const bytes = Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array);
      size += bytes.length;
      streaming ??= String(res.getHeader('content-type') ?? '').startsWith('text/event-stream');
      // An event stream never ends by itself: its size is counted, its content is the event log's.
      if (streaming || captured >= RESPONSE_CAPTURE_LIMIT) return;
      chunks.push(bytes);
      captured += bytes.length;
    };
    const write = res.write.bind(res) as Writer;
    const end = res.end.bind(res) as Writer;
    (res as unknown as { write: Writer }).write = (...args) => {
      keep(args[0], args[1]);
      return write(...args);
    };
    (res as unknown as { end: Writer }).end = (...args) => {
      keep(args[0], args[1]);
      return end(...args);
    };
    let recorded = false;
    const record = (complete: boolean) => {
      if (recorded) return;
      recorded = true;
      const exchange = res.locals.exchange as Exchange | undefined;
      const host = req.headers.host ?? 'localhost';
      const scheme = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
      journal.recordInbound({
        id,
        at,
        method: req.method,
        url: `${scheme}://${host}${req.originalUrl}`,
        path: req.originalUrl.split('?')[0],
        requestHeaders: req.headers,
        requestBody: exchange?.rawBody ?? (Buffer.isBuffer(req.body) ? (req.body as Buffer) : null),
        status: res.statusCode,
        responseHeaders: res.getHeaders(),
        responseChunks: chunks,
        responseSize: size,
        latencyMs: Number(process.hrtime.bigint() - started) / 1e6,
        code: (res.locals.problemCode as string | undefined) ?? null,
        clientId: exchange?.client?.id ?? null,
        requestId: (res.locals.requestId as string | undefined) ?? null,
        orderId: decoded(res.locals.rawOrderId),
        fault: (res.locals.fault as string | undefined) ?? null,
        error: complete || streaming ? null : 'the connection closed before the answer was complete',
      });
    };
    res.once('finish', () => record(true));
    res.once('close', () => record(res.writableFinished));
    next();
  };
}
