// Senders: supertest, node:http with exact (repeated) headers, and a raw socket for bytes no client library sends.
import http from 'node:http';
import net from 'node:net';
import request from 'supertest';
import { WireRequest } from './requests';
import { FuzzTarget } from './types';

export interface WireResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function headerObject(headers: [string, string][]): http.OutgoingHttpHeaders {
  const object: Record<string, string | string[]> = {};
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    const existing = object[key];
    object[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return object;
}

/** node:http on a keep-alive agent: exact headers (arrays repeat a header), no defaults but Host and framing. */
export function sendHttp(t: FuzzTarget, req: WireRequest): Promise<WireResponse> {
  const headers = headerObject(req.headers);
  if (req.body !== undefined && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) headers['content-length'] = String(req.body.length);
  return new Promise<WireResponse>((resolve, reject) => {
    const outgoing = http.request({ host: '127.0.0.1', port: t.port, method: req.method, path: req.path, headers, agent: t.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}

/** supertest against the listening server; only for requests without repeated headers. */
export async function sendSupertest(t: FuzzTarget, req: WireRequest): Promise<WireResponse> {
  const agent = request(t.base) as unknown as Record<string, (path: string) => request.Test>;
  const method = req.method.toLowerCase();
  if (typeof agent[method] !== 'function') return sendHttp(t, req);
  // Bytes go as they are: superagent would otherwise JSON- or form-serialise a Buffer after its Content-Type.
  let test = agent[method](req.path).serialize((data: unknown) => data as string);
  for (const [name, value] of req.headers) test = test.set(name, value);
  const response = await (req.body === undefined ? test : test.send(req.body));
  return { status: response.status, headers: response.headers as http.IncomingHttpHeaders, text: response.text ?? '' };
}

/** Exact bytes over a fresh socket (Connection: close expected); parses one HTTP/1.1 answer. */
export function sendBytes(t: FuzzTarget, bytes: Buffer): Promise<WireResponse | { closed: true; error: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(t.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      if (split < 0) return resolve({ closed: true, error: error ?? `no complete answer: ${JSON.stringify(all.toString('latin1').slice(0, 200))}` });
      const head = all.subarray(0, split).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0])?.[1] ?? 0);
      const headers: http.IncomingHttpHeaders = {};
      for (const line of head.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body = all.subarray(split + 4);
      const length = Number(headers['content-length']);
      if (Number.isFinite(length)) body = body.subarray(0, length);
      resolve({ status, headers, text: body.toString('utf8') });
    };
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => finish(error.message));
    socket.on('close', () => finish());
    socket.setTimeout(10_000, () => {
      socket.destroy();
      finish('timeout');
    });
    socket.end(bytes);
  });
}

/** The request as bytes on the wire (header values as latin1, so any byte 0x80-0xFF can be sent). */
export function wireBytes(req: WireRequest, port: number): Buffer {
  const lines = [`${req.method} ${req.path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close'];
  const names = req.headers.map(([name]) => name.toLowerCase());
  for (const [name, value] of req.headers) lines.push(`${name}: ${value}`);
  if (req.body !== undefined && !names.includes('content-length') && !names.includes('transfer-encoding')) lines.push(`Content-Length: ${req.body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), req.body ?? Buffer.alloc(0)]);
}

let alternate = 0;

export async function sendRequest(t: FuzzTarget, req: WireRequest, via?: 'raw' | 'supertest' | 'socket'): Promise<WireResponse> {
  if (req.bytes || via === 'socket') {
    const answer = await sendBytes(t, req.bytes ?? wireBytes(req, t.port));
    if ('closed' in answer) throw new Error(`${req.kind}: connection closed without an answer (${answer.error})`);
    return answer;
  }
  alternate += 1;
  const useSupertest = via === 'supertest' || (via === undefined && !req.rawOnly && alternate % 2 === 0);
  return useSupertest ? sendSupertest(t, req) : sendHttp(t, req);
}
