// RFC 9112 section 3.2.2: a server MUST accept a request target in absolute form. The profile's @target-uri, a
// problem's instance and DPoP's htu path are the path and query only (wire/http-edge.ts, originForm).
import { Bank } from '../../src/bank/bank';
import { originForm, targetAuthority } from '../../src/wire/http-edge';
import { DemoClient, sampleOrder, startBank } from '../helpers/bank';
import { rawRequest, signedCreateHeaders } from '../helpers/wire';

describe('originForm and targetAuthority', () => {
  it.each([
    ['/payment-orders', '/payment-orders', null],
    ['/payment-orders/A/status?x=%2F', '/payment-orders/A/status?x=%2F', null],
    ['http://127.0.0.1:8080/payment-orders', '/payment-orders', '127.0.0.1:8080'],
    ['https://bank.example/payment-orders/A%20B/status?a=1&b=%41', '/payment-orders/A%20B/status?a=1&b=%41', 'bank.example'],
    ['http://bank.example', '/', 'bank.example'],
    ['http://bank.example?q=1', '/?q=1', 'bank.example'],
    ['*', '*', null],
  ])('%s: %s, authority %s', (target, origin, authority) => {
    expect(originForm(target)).toBe(origin);
    expect(targetAuthority(target)).toBe(authority);
  });
});

describe('a create in absolute form', () => {
  let bank: Bank;
  let token: string;

  beforeAll(async () => {
    bank = await startBank({ sandboxMode: 'relaxed' });
    token = await new DemoClient(bank).token();
  });
  afterAll(() => bank.close());

  it('signed over its path verifies and creates the order', async () => {
    const body = JSON.stringify(sampleOrder());
    const answer = await rawRequest(bank.app, { method: 'POST', path: 'http://127.0.0.1:9/payment-orders', headers: signedCreateHeaders(bank, token, body), body });
    expect([answer.status, answer.text]).toEqual([200, expect.stringContaining('"status":"SUCCESS"')]);
    // The journal names the URL once: the target's authority, then its path.
    await new Promise((resolve) => setImmediate(resolve));
    bank.journal.flush();
    const entry = bank.db.prepare("SELECT url FROM journal WHERE path = '/payment-orders' ORDER BY id DESC LIMIT 1").pluck().get();
    expect(entry).toBe('http://127.0.0.1:9/payment-orders');
  });

  it('refused, names the path as its instance', async () => {
    const body = JSON.stringify(sampleOrder());
    const headers = { ...signedCreateHeaders(bank, token, body), 'x-signature': undefined };
    const answer = await rawRequest(bank.app, { method: 'POST', path: 'http://127.0.0.1:9/payment-orders', headers, body });
    expect([answer.status, answer.json().code, answer.json().instance]).toEqual([401, 'signature_missing', '/payment-orders']);
  });
});
