// The built Bank (dist/bank/main.js) starts from the build's bundle with V8's code cache (wire/fast-start.ts), and
// behaves the same as when its modules load one by one (FAST_START=off): a signed create and its status poll, the
// files it reads beside its code (schemas, the dashboard's assets, package.json), and its graceful stop.
import { isAscii } from 'node:buffer';
import fs from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { ChildBank, kill, startChildBank } from '../helpers/child-bank';
import { demo, isoNow, newNonce, ROOT, sampleOrder, signedCreateHeaders, signRequest, tempDir } from '../helpers/bank';
import { wireRequest } from '../helpers/https-request';

const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

function listening(bank: ChildBank): Record<string, unknown> {
  return JSON.parse(bank.logs.find((line) => line.includes('"sandbox bank listening"')) as string) as Record<string, unknown>;
}

async function createAndPoll(base: string): Promise<{ created: number; polled: number; body: unknown }> {
  const token = await wireRequest(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${demo.client_id}:${demo.client_secret}`).toString('base64')}` },
    body: 'grant_type=client_credentials',
  });
  const order = sampleOrder({ metadata: { sandbox_scenario: 'NO_CALLBACK' } });
  const body = JSON.stringify(order);
  const created = await wireRequest(`${base}/payment-orders`, { method: 'POST', headers: signedCreateHeaders(body, token.json?.access_token as string), body });
  const target = `/payment-orders/${order.reference as string}/status`;
  const headers: Record<string, string> = { 'x-client-id': demo.client_id, 'x-timestamp': isoNow(), 'x-nonce': newNonce() };
  headers['x-signature'] = signRequest('status', 'GET', target, headers, '');
  headers.authorization = `X-API-Key ${demo.api_key}`;
  const polled = await wireRequest(`${base}${target}`, { headers });
  return { created: created.status, polled: polled.status, body: polled.json };
}

describe.each<{ mode: string; env: Record<string, string>; startedFrom: string; codeCache: string }>([
  { mode: 'from the bundle with its code cache (the default)', env: {}, startedFrom: 'bundle', codeCache: 'accepted' },
  { mode: 'from its modules (FAST_START=off)', env: { FAST_START: 'off' }, startedFrom: 'modules', codeCache: 'none' },
])('the built Bank started $mode', ({ env, startedFrom, codeCache }) => {
  let bank: ChildBank;

  beforeAll(async () => {
    // V8 takes a code cache only under the flags it was made with: the build's warm-up runs without NODE_OPTIONS.
    bank = await startChildBank({ DATA_DIR: tempDir('sandbox-bank-e2e-start-'), POLL_CRON: 'off', SANDBOX_MODE: 'relaxed', NODE_OPTIONS: '', LOG_LEVEL: 'debug', ...env });
  });
  afterAll(async () => {
    if (bank.process.exitCode === null) await kill(bank, 'SIGKILL');
  });

  it('says how it started', () => {
    expect(listening(bank)).toMatchObject({ started_from: startedFrom, code_cache: codeCache });
  });

  it("runs the idle collection: npm start's flags expose node's gc (docs/architecture.md, Memory)", () => {
    expect(bank.logs.some((line) => line.includes('"idle collection on"'))).toBe(true);
    expect(bank.logs.some((line) => line.includes('idle collection off'))).toBe(false);
  });

  it('takes a signed create and answers its status poll', async () => {
    const { created, polled, body } = await createAndPoll(bank.httpUrl);
    expect(created).toBe(202);
    expect(polled).toBe(200);
    expect(body).toMatchObject({ status: 'PENDING' });
  });

  it('finds the files beside its code: the dashboard, the OpenAPI document with the package version', async () => {
    const dashboard = await wireRequest(`${bank.httpUrl}/dashboard/`);
    expect(dashboard.status).toBe(200);
    expect(dashboard.text).toContain('<html');
    const openapi = await wireRequest(`${bank.httpUrl}/openapi.json`);
    expect(openapi.status).toBe(200);
    expect((openapi.json as unknown as { info: { version: string } }).info.version).toBe(VERSION);
  });

  it('checks a control-plane body against its schema: ajv, left out of the bundle, loads on first use', async () => {
    const answer = await wireRequest(`${bank.httpUrl}/sandbox/clients/${demo.client_id}/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ frozen_at: 5 }),
    });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ code: 'body_invalid', errors: [expect.objectContaining({ path: '/frozen_at' })] });
  });

  it('stops gracefully on SIGTERM', async () => {
    expect(await kill(bank, 'SIGTERM')).toBe(0);
  });
});

describe('the bundle and the packages it leaves out (scripts/bundle.js)', () => {
  const bundle = path.join(ROOT, 'dist', 'bank', 'server.bundle.js');
  const source = fs.readFileSync(bundle, 'utf8');
  const requiredByName = [...new Set([...source.matchAll(/\brequire\("([^".][^"]*)"\)/g)].map((match) => match[1]))];

  it('finds every package it requires by name beside it, in node_modules', () => {
    const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
    const packages = requiredByName.filter((name) => !builtins.has(name));
    expect(packages).toEqual(expect.arrayContaining(['ajv', 'ajv-formats', 'axios', 'bindings', 'iconv-lite', 'mime-db']));
    for (const name of packages) expect(() => createRequire(bundle).resolve(name)).not.toThrow();
  });

  it("carries better-sqlite3's JavaScript (the store opens its native addon by path: test/unit/sqlite-open.test.ts)", () => {
    expect(requiredByName).not.toContain('better-sqlite3');
    expect(source).toContain('"node_modules/better-sqlite3/lib/database.js"');
  });

  it('is ASCII, which the launcher reads without decoding (wire/fast-start.ts)', () => {
    expect(isAscii(fs.readFileSync(bundle))).toBe(true);
  });

  it("defers the start-up work of mime-types, express and body-parser's exports to first use (scripts/deferred-exports.js)", () => {
    expect(source).toContain('deferMaps("types")');
    const deferred = [...source.matchAll(/deferExport\(\w+,"(\w+)"/g)].map((match) => match[1]).sort();
    expect(deferred).toEqual(['json', 'json', 'raw', 'raw', 'static', 'text', 'text', 'urlencoded', 'urlencoded']);
  });

  it('carries none of the left-out packages itself', () => {
    for (const name of ['ajv', 'ajv-formats', 'axios', 'fast-uri', 'form-data', 'iconv-lite', 'mime-db']) expect(source).not.toContain(`"node_modules/${name}/`);
  });
});
