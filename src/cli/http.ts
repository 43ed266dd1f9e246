// Plain HTTP calls of the CLI (control plane, token endpoint, reports, JWKS), over http or https with the
// optional mTLS material. A call that gets no HTTP answer throws Unreachable; every status is an answer.
import http, { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import https from 'node:https';
import type { TlsMaterial } from '../wire/signed-client';

export interface HttpCall {
  method: string;
  url: URL;
  headers?: Record<string, string>;
  body?: Buffer | string;
  tls?: TlsMaterial;
  /** No answer within this time: Unreachable (default 30 s; 0: none). */
  timeoutMs?: number;
}

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** No HTTP answer: connection refused, DNS, TLS handshake, time-out. */
export class Unreachable extends Error {}

const DEFAULT_TIMEOUT_MS = 30_000;

/** Opens the request and resolves with the response head; the caller reads (or streams) the body. */
export function openRequest(call: HttpCall): { response: Promise<IncomingMessage>; abort: () => void } {
  const transport = call.url.protocol === 'https:' ? https : http;
  const headers: Record<string, string> = { ...call.headers };
  if (call.body !== undefined) headers['content-length'] = String(Buffer.byteLength(call.body));
  const request = transport.request(call.url, {
    method: call.method,
    headers,
    agent: false,
    ca: call.tls?.ca,
    cert: call.tls?.cert,
    key: call.tls?.key,
  });
  const timeoutMs = call.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    request.on('response', resolve);
    request.on('error', (error: NodeJS.ErrnoException) => reject(new Unreachable(`${call.method} ${call.url.href}: ${error.code ?? error.message}${error.code ? ` (${error.message})` : ''}`)));
    if (timeoutMs > 0) {
      request.setTimeout(timeoutMs, () => request.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    }
  });
  request.end(call.body);
  return { response, abort: () => request.destroy() };
}

/** One request and its whole answer. */
export async function httpCall(call: HttpCall): Promise<HttpAnswer> {
  const { response } = openRequest(call);
  const res = await response;
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', resolve);
    res.on('error', (error) => reject(new Unreachable(`${call.method} ${call.url.href}: the answer broke off (${error.message})`)));
  });
  const body = Buffer.concat(chunks);
  return { status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') };
}

export { parseJsonText } from '../wire/json-text';
