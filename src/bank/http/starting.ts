// What the Bank's listeners answer between binding their ports and the store being ready (server.ts binds first, so
// that a start refused its port never migrates the store).
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { PROBLEM_CONTENT_TYPE } from '../../wire/problems';

/**
 * The listeners' answer while the store opens and migrates (a large store's migration can take a while): the
 * process is up (/healthz), not ready (/readyz, and every other request: 503 not_ready, Retry-After 1).
 */
export function answerStarting(req: http.IncomingMessage, res: http.ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method === 'GET' && path === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end('{"status":"ok"}');
    return;
  }
  const requestId = randomUUID();
  const body = JSON.stringify({
    type: 'urn:sandbox-bank:problem:not_ready', title: 'Not ready', status: 503, detail: 'the Bank is starting: its store is being opened and migrated',
    instance: path, code: 'not_ready', request_id: requestId, checks: { database: false, migrations: false, keys: false },
  });
  res.writeHead(503, { 'content-type': PROBLEM_CONTENT_TYPE, 'retry-after': '1', 'x-request-id': requestId }).end(body);
}

