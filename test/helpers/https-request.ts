// A minimal HTTP(S) client for real-socket tests: optional client certificate, raw body, parsed JSON answer.
import http from 'node:http';
import https from 'node:https';

export interface WireResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: Record<string, unknown> | null;
}

export interface WireRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

export function wireRequest(url: string, options: WireRequest = {}): Promise<WireResponse> {
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      target,
      { method: options.method ?? 'GET', headers: options.headers, ca: options.ca, cert: options.cert, key: options.key, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, unknown> | null = null;
          try {
            json = text ? (JSON.parse(text) as Record<string, unknown>) : null;
          } catch {
            json = null;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
