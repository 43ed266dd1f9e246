// Hostile input to /sandbox/*: query parameters named after Object.prototype members are unknown parameters like
// any other (400 query_invalid), not a crash and not silently accepted.
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { startBank } from '../helpers/bank';
import { expectProblem } from '../helpers/wire';

jest.setTimeout(60_000);

const ADMIN = 'admin-token-of-the-hostile-input-test';

let bank: Bank;

beforeAll(async () => {
  bank = await startBank({ adminToken: ADMIN });
});

afterAll(() => {
  bank.close();
});

describe('query parameters named after Object.prototype members are unknown parameters', () => {
  const names = ['__proto__', 'constructor', 'hasOwnProperty', 'valueOf', 'toString', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__defineGetter__'];
  const endpoints = ['/sandbox/orders', '/sandbox/journal', '/sandbox/callbacks', '/sandbox/events'];
  const cases = endpoints.flatMap((endpoint) => names.map((name) => [endpoint, name] as const));

  test.each(cases)('%s?%s=1 is 400 query_invalid', async (endpoint, name) => {
    // A parameter taken as known would start the event stream: a short time-out turns that into a failure.
    const answer = await request(bank.app).get(`${endpoint}?${name}=1`).set('Authorization', `Bearer ${ADMIN}`).timeout(10_000);
    const problem = expectProblem(answer, 400, 'query_invalid');
    expect(problem.detail).toContain(`unknown query parameter "${name}"`);
  });
});
