// TokenCache (src/wire/signed-client.ts): the token is reused until shortly before it expires, and a refusal says
// why in the error the outbound logs, as the token server worded it (RFC 6749 §5.2).
import { HttpAnswer, SignedClient, TokenCache } from '../../src/wire/signed-client';

function fakeClient(answers: Partial<HttpAnswer>[]): { client: SignedClient; calls: () => number } {
  let calls = 0;
  const send = async (): Promise<HttpAnswer> => {
    const answer = answers[Math.min(calls, answers.length - 1)];
    calls += 1;
    return { status: 200, headers: {}, body: '', latencyMs: 1, error: null, ...answer };
  };
  return { client: { send } as unknown as SignedClient, calls: () => calls };
}

const credentials = { tokenUrl: 'http://bank.test/oauth/token', clientId: 'demo', clientSecret: 'secret-value' };

function cacheOf(answers: Partial<HttpAnswer>[], now: { ms: number } = { ms: 0 }) {
  const fake = fakeClient(answers);
  return { cache: new TokenCache(fake.client, credentials, { now: () => now.ms }, 30_000), calls: fake.calls };
}

describe('TokenCache', () => {
  it('a refusal names the RFC 6749 error and its description', async () => {
    const body = JSON.stringify({ error: 'invalid_client', error_description: 'unknown client or wrong client secret', code: 'auth_invalid' });
    const { cache } = cacheOf([{ status: 401, body }]);
    await expect(cache.token()).rejects.toThrow('token request to http://bank.test/oauth/token answered 401: invalid_client (unknown client or wrong client secret)');
  });

  it('a refusal that is not RFC 6749 JSON gives the status only, and a long description is cut', async () => {
    await expect(cacheOf([{ status: 502, body: '<html>bad gateway</html>' }]).cache.token()).rejects.toThrow(/answered 502$/);
    const long = JSON.stringify({ error: 'invalid_request', error_description: 'x'.repeat(5000) });
    const error = await cacheOf([{ status: 400, body: long }]).cache.token().catch((caught: Error) => caught);
    expect((error as Error).message).toBe(`token request to http://bank.test/oauth/token answered 400: invalid_request (${'x'.repeat(200)})`);
  });

  it('no answer at all names the network error', async () => {
    await expect(cacheOf([{ status: null, error: 'ECONNREFUSED: connect ECONNREFUSED' }]).cache.token()).rejects.toThrow('failed: ECONNREFUSED');
  });

  it('reuses the token until the refresh margin before it expires', async () => {
    const now = { ms: 0 };
    const { cache, calls } = cacheOf([{ body: JSON.stringify({ access_token: 'a', expires_in: 60 }) }, { body: JSON.stringify({ access_token: 'b', expires_in: 60 }) }], now);
    expect(await cache.token()).toBe('a');
    now.ms = 29_999;
    expect(await cache.token()).toBe('a');
    now.ms = 30_000;
    expect(await cache.token()).toBe('b');
    expect(calls()).toBe(2);
  });
});
