// One HTTP exchange of the signed client, on node:http(s) directly (issue 15: axios's request machinery was a
// fifth of the CPU of each callback the Bank sends). What goes on the wire and what comes back is what axios 1.x
// made of the same call, so that no peer sees a difference:
// - the request: `Accept` first, `Content-Type` second (its value the caller's, by default
//   application/x-www-form-urlencoded on POST), then the caller's headers in their order and spelling (a caller's
//   accept or content-type takes those first two places), then `User-Agent: axios/<version>`, `Content-Length`
//   and `Accept-Encoding`; a string body with a JSON content type is trimmed when it is JSON, else sent as a
//   JSON string; node adds Host and Connection after them;
// - the answer: decompressed as announced (gzip, compress, deflate, br), read as UTF-8 without a BOM, the
//   Content-Encoding header dropped once decoded;
// - the failures, with axios's codes and messages: `ECONNABORTED` "timeout of <n>ms exceeded" (no answer head
//   within the time-out, or an answer body idle that long), `ERR_BAD_RESPONSE` "maxContentLength size of <n> exceeded"
//   and "stream has been aborted", `ERR_CANCELED` "canceled" (the caller's signal), and the network's own errors.
// test/unit/http-request.test.ts sends the same calls through axios and through this, and compares the bytes.
import http from 'node:http';
import https from 'node:https';
import { pipeline, Readable, Transform, TransformCallback } from 'node:stream';
import zlib from 'node:zlib';

/** The User-Agent axios sent, with the version of the axios this project depends on. */
export function axiosUserAgent(): string {
  try {
    return `axios/${(require('axios/package.json') as { version: string }).version}`;
  } catch {
    return 'axios/1.21.1';
  }
}

const ACCEPT = 'application/json, text/plain, */*';
const ACCEPT_ENCODING = 'gzip, compress, deflate, br';
const FORM = 'application/x-www-form-urlencoded';
const METHODS_WITH_CONTENT_TYPE = new Set(['POST', 'PUT', 'PATCH']);

let userAgent: string | null = null;

export interface HttpRequestOptions {
  method: string;
  url: URL;
  headers: Readonly<Record<string, string>>;
  body?: Buffer | string;
  agent: http.Agent;
  /** No answer head within this long, or an answer body idle this long: ECONNABORTED. 0: none. */
  timeoutMs: number;
  /** Larger (decoded) answers fail; -1 or undefined: no limit. */
  maxResponseBytes?: number;
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A failure as axios reported it: its code (undefined when the network error had none) and message. */
export class HttpRequestError extends Error {
  constructor(readonly code: string | undefined, message: string) {
    super(message);
  }
}

/**
 * Header names as sent, with values; a slot can be empty (`undefined`) and is then not sent. A dozen headers at
 * most: parallel arrays and a linear search beat a Map here.
 */
class HeaderList {
  private readonly names: string[] = [];
  /** Each name's trimmed lower-case form (names match caselessly). */
  private readonly keys: string[] = [];
  private readonly values: (string | undefined)[] = [];

  /** Sets a header; the first spelling and place of a name are kept. `rewrite` false: only when it has no value. */
  set(name: string, value: string | undefined, rewrite = true): void {
    const key = name.toLowerCase().trim();
    if (!key) return;
    const sanitized = value === undefined ? undefined : sanitize(value);
    const at = this.keys.indexOf(key);
    if (at === -1) {
      this.names.push(name);
      this.keys.push(key);
      this.values.push(sanitized);
    } else if (rewrite || this.values[at] === undefined) {
      this.values[at] = sanitized;
    }
  }

  get(name: string): string | undefined {
    const at = this.keys.indexOf(name.toLowerCase());
    return at === -1 ? undefined : this.values[at];
  }

  toObject(): Record<string, string> {
    const out: Record<string, string> = {};
    for (let at = 0; at < this.names.length; at += 1) {
      const value = this.values[at];
      if (value !== undefined) out[this.names[at]] = value;
    }
    return out;
  }
}

/** axios's header value sanitising: spaces and tabs trimmed, control characters removed. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

function sanitize(value: string): string {
  // Most values need nothing: a look at both ends and one scan instead of two replacements.
  if (!paddedAt(value.charCodeAt(0)) && !paddedAt(value.charCodeAt(value.length - 1)) && !CONTROL.test(value)) return value;
  // eslint-disable-next-line no-control-regex
  return value.replace(/^[ \t]+|[ \t]+$/g, '').replace(/[\u0000-\u0008\u000a-\u001f\u007f]+/g, '');
}

/** A space or a tab. */
function paddedAt(charCode: number): boolean {
  return charCode === 0x20 || charCode === 0x09;
}

/** axios's stringifySafely for a string body sent as JSON. */
function jsonBody(text: string): string {
  try {
    JSON.parse(text);
    return text.trim();
  } catch {
    return JSON.stringify(text);
  }
}

/** The headers and body bytes axios sent for this call. */
export function requestOf(method: string, given: Readonly<Record<string, string>>, body: Buffer | string | undefined): { headers: Record<string, string>; payload: Buffer | undefined } {
  const headers = new HeaderList();
  headers.set('Accept', ACCEPT);
  headers.set('Content-Type', undefined);
  for (const [name, value] of Object.entries(given)) headers.set(name, value);
  const upper = method.toUpperCase();
  if (METHODS_WITH_CONTENT_TYPE.has(upper)) headers.set('Content-Type', FORM, false);
  let data: Buffer | string | undefined = body;
  if (typeof data === 'string' && (headers.get('Content-Type') ?? '').includes('application/json')) data = jsonBody(data);
  const payload = data === undefined || data === '' ? undefined : Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf-8');
  userAgent ??= axiosUserAgent();
  headers.set('User-Agent', userAgent, false);
  if (payload !== undefined) headers.set('Content-Length', String(payload.length), false);
  headers.set('Accept-Encoding', ACCEPT_ENCODING, false);
  return { headers: headers.toObject(), payload };
}

/** axios inserts this before inflating a `deflate` answer: a raw deflate stream gets the zlib header (78 9C) it lacks. */
class ZlibHeader extends Transform {
  private checked = false;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.checked && chunk.length !== 0) {
      this.checked = true;
      if (chunk[0] !== 0x78) this.push(Buffer.from([0x78, 0x9c]));
    }
    callback(null, chunk);
  }
}

const ZLIB_FLUSH = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI_FLUSH = { flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH };

/** The answer's body stream, decoded as its Content-Encoding says (which is then dropped from the headers). */
function decoded(res: http.IncomingMessage, method: string): Readable {
  const headers = res.headers;
  if (!headers['content-encoding']) return res;
  if (method === 'HEAD' || res.statusCode === 204) delete headers['content-encoding'];
  const streams: (Readable | Transform)[] = [res];
  switch ((headers['content-encoding'] ?? '').toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
    case 'compress':
    case 'x-compress':
      streams.push(zlib.createUnzip(ZLIB_FLUSH));
      delete headers['content-encoding'];
      break;
    case 'deflate':
      streams.push(new ZlibHeader(), zlib.createUnzip(ZLIB_FLUSH));
      delete headers['content-encoding'];
      break;
    case 'br':
      streams.push(zlib.createBrotliDecompress(BROTLI_FLUSH));
      delete headers['content-encoding'];
      break;
    default:
  }
  return streams.length > 1 ? (pipeline(streams as unknown as [Readable, Transform], () => undefined) as unknown as Readable) : res;
}

/**
 * The request's path and query exactly as they travel: what requestOptions sends, and what the signed client signs
 * as @target-uri (a base URL may carry a path prefix).
 */
export function requestTarget(url: URL): string {
  return url.pathname + url.search;
}

/**
 * What node's http.request makes of a URL (its urlToHttpOptions), as a plain object: given the URL itself, node
 * builds a prototype-less copy of it, and every option the request and the agent look up on that copy is a
 * dictionary miss (~30 µs of a keep-alive mTLS callback, measured in-process against this).
 */
function requestOptions(url: URL, method: string, headers: Record<string, string>, agent: http.Agent): http.RequestOptions {
  const { hostname, port, username, password } = url;
  const options: http.RequestOptions = {
    protocol: url.protocol,
    hostname: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
    path: requestTarget(url),
    method,
    headers,
    agent,
  };
  if (port !== '') options.port = Number(port);
  if (username || password) options.auth = `${decodeURIComponent(username)}:${decodeURIComponent(password)}`;
  return options;
}

/** The idle time before TCP keep-alive probes, as axios set it on each request's socket. */
export const TCP_KEEP_ALIVE_MS = 60_000;

/**
 * Sockets already given TCP keep-alive: a keep-alive socket serves many requests, and one setsockopt through the
 * TLS wrap per request was ~11 µs of a callback. The signed client's agents keep the same delay on pooled sockets.
 */
const keptAlive = new WeakSet<object>();

function errorOf(error: unknown): HttpRequestError {
  if (error instanceof HttpRequestError) return error;
  const { code, message } = error as { code?: string; message?: string };
  return new HttpRequestError(code, message ?? String(error));
}

/** Sends one request; resolves with the answer, or rejects with an HttpRequestError (or a TypeError for a bad call). */
export function httpRequest(options: HttpRequestOptions): Promise<HttpResponse> {
  const { method, url, timeoutMs, signal } = options;
  const limit = options.maxResponseBytes ?? -1;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(new HttpRequestError('ERR_BAD_REQUEST', `Unsupported protocol ${url.protocol}`));
  const { headers, payload } = requestOf(method, options.headers, options.body);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<HttpResponse>((resolve, reject) => {
    let done = false;
    let limitTimer: NodeJS.Timeout | null = null;
    const finish = (outcome: () => void) => {
      if (done) return;
      done = true;
      if (limitTimer) clearTimeout(limitTimer);
      signal?.removeEventListener('abort', cancel);
      outcome();
    };
    const fail = (error: HttpRequestError) => {
      // After the answer, a late timer or socket error belongs to nobody: the socket may serve another request.
      if (done) return;
      finish(() => reject(error));
      req.destroy();
    };
    const cancel = () => fail(new HttpRequestError('ERR_CANCELED', 'canceled'));
    const timedOut = () => fail(new HttpRequestError('ECONNABORTED', `timeout of ${timeoutMs}ms exceeded`));
    const req = transport.request(requestOptions(url, method, headers, options.agent), (res) => {
      if (done) return;
      // From the head on, the same timer limits how long the body may stay idle (its bytes as they arrive).
      const idle = limitTimer;
      if (idle) {
        idle.refresh();
        res.on('data', () => idle.refresh());
      }
      const stream = decoded(res, method.toUpperCase());
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (limit > -1 && size > limit) {
          // Failed first: destroying the stream makes it say it was aborted, which this failure is not.
          fail(new HttpRequestError('ERR_BAD_RESPONSE', `maxContentLength size of ${limit} exceeded`));
          stream.destroy();
        }
      });
      stream.on('aborted', () => {
        stream.destroy();
        fail(new HttpRequestError('ERR_BAD_RESPONSE', 'stream has been aborted'));
      });
      stream.on('error', (error) => fail(errorOf(error)));
      stream.on('end', () => {
        let text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        finish(() => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
    });
    req.on('socket', (socket) => {
      if (keptAlive.has(socket) || typeof socket.setKeepAlive !== 'function') return;
      socket.setKeepAlive(true, TCP_KEEP_ALIVE_MS);
      keptAlive.add(socket);
    });
    req.on('error', (error) => fail(errorOf(error)));
    if (timeoutMs > 0) {
      // axios's limit is the socket's idle time. Until the answer's head that is never longer than the time since
      // the request began, so a wall-clock timer says the same, and from the head on it limits the body's idle
      // time. One timer a request, where the socket's own idle timer was re-armed for each (issue 15: ~3 % of a
      // unit callback).
      limitTimer = setTimeout(timedOut, timeoutMs);
    } else {
      req.setTimeout(0);
    }
    if (signal) {
      if (signal.aborted) return cancel();
      signal.addEventListener('abort', cancel);
    }
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
