// Between binding its ports and its store being ready the Bank is up but not ready (http/starting.ts).
import http from 'node:http';
import request from 'supertest';
import { answerStarting } from '../../src/bank/http/starting';

describe('the answer while the Bank starts', () => {
  const server = http.createServer(answerStarting);
  afterAll(() => server.close());

  it('is up: /healthz answers 200', async () => {
    const answer = await request(server).get('/healthz');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'ok' });
  });

  it.each([['GET', '/readyz'], ['POST', '/payment-orders'], ['GET', '/sandbox/orders?limit=1']])('is not ready: %s %s answers 503 not_ready, retry in a second', async (method, target) => {
    const answer = await request(server)[method.toLowerCase() as 'get' | 'post'](target);
    expect(answer.status).toBe(503);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.body).toMatchObject({ status: 503, code: 'not_ready', instance: target.split('?')[0], request_id: answer.headers['x-request-id'], checks: { database: false, migrations: false, keys: false } });
  });
});
