// The access log and the request metrics, on what express's own bookkeeping gets wrong: a mounted router (/sandbox,
// the token endpoint) strips its prefix from req.path while it runs; an event stream that the client ends never
// emits `finish`; and express matches /SANDBOX as /sandbox, whose spelling must not become a label value.
import http from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { demo, startBank } from '../helpers/bank';
import { waitFor } from '../helpers/outbound';
import { capturingLogger, LogLine } from '../helpers/logs';
import { parsePrometheusText, valueOf } from '../metrics/prometheus-text';

type Line = LogLine;

describe('the access log and the request metrics', () => {
  let bank: Bank;
  let lines: Line[];
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    const captured = capturingLogger();
    lines = captured.lines;
    bank = await startBank({ sandboxMode: 'relaxed' }, { logger: captured.logger });
    server = bank.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    bank.close();
  });

  const accessLines = (path: string) => lines.filter((line) => line.message === 'request' && line.path === path);

  it('logs the whole path of a request a mounted router answered', async () => {
    expect((await request(bank.app).post('/oauth/token').type('form').send({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' })).status).toBe(401);
    expect((await request(bank.app).get(`/sandbox/orders/${demo.client_id}/NOPE`)).status).toBe(404);
    await waitFor(() => accessLines(`/sandbox/orders/${demo.client_id}/NOPE`).length === 1, 5_000, 'the /sandbox access line');
    expect(accessLines('/oauth/token')).toEqual([expect.objectContaining({ method: 'POST', status: 401, code: 'auth_invalid' })]);
    expect(accessLines(`/sandbox/orders/${demo.client_id}/NOPE`)).toEqual([expect.objectContaining({ method: 'GET', status: 404, code: 'not_found' })]);
  });

  it('names the client on a rejection line: the X-Client-Id claimed, before any authentication', async () => {
    const refused = await request(bank.app).post('/payment-orders').set({ 'x-client-id': demo.client_id, 'content-type': 'application/json' }).send('{}');
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const requestId = refused.headers['x-request-id'];
    await waitFor(() => lines.some((line) => line.message === 'request rejected' && line.request_id === requestId), 5_000, 'the rejection line');
    expect(lines.find((line) => line.message === 'request rejected' && line.request_id === requestId)).toMatchObject({ client_id: demo.client_id, code: refused.body.code });
  });

  it('logs and counts an event stream the client closed', async () => {
    await new Promise<void>((resolve, reject) => {
      const req = http.get({ port, host: '127.0.0.1', path: '/sandbox/events' }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error)));
    });
    await waitFor(() => accessLines('/sandbox/events').length === 1, 10_000, 'the event stream\'s access line');
    expect(accessLines('/sandbox/events')).toEqual([expect.objectContaining({ method: 'GET', status: 200 })]);
    const metrics = parsePrometheusText((await request(bank.app).get('/metrics')).text);
    expect(valueOf(metrics, 'sandbox_bank_http_requests_total', { route: '/sandbox/events', method: 'GET', status: '200' })).toBe(1);
  });

  it('labels /SANDBOX/... by the route as written, not by the spelling of the request', async () => {
    expect((await request(bank.app).get(`/SANDBOX/orders/${demo.client_id}/NOPE`)).status).toBe(404);
    expect((await request(bank.app).get('/Sandbox/no-such-area')).status).toBe(404);
    const text = (await request(bank.app).get('/metrics')).text;
    expect(text).not.toMatch(/route="\/S[Aa]/);
    expect(valueOf(parsePrometheusText(text), 'sandbox_bank_http_requests_total', { route: '/sandbox/orders/:client_id/:reference', method: 'GET', status: '404' })).toBe(2);
  });
});
