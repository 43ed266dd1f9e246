// The target: a Bank on a listening loopback socket with a second client, tokens of every kind, seeded orders, an
// idempotency record and spent nonces.
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import request from 'supertest';
import winston from 'winston';
import type { BankConfig } from '../../../src/bank/config';
import { signingKeyFromJwk } from '../../../src/wire/keys';
import { TokenService } from '../../../src/bank/security/tokens';
import { demo, startBank } from '../../helpers/bank';
import { makeTestClient, writeClientsFile } from '../../helpers/clients';
import { DpopKey } from '../../helpers/dpop';
import { baseCreate, baseStatus, finalize, order } from './requests';
import { sendRequest } from './transport';
import { ADMIN_TOKEN, BODY_LIMIT, FuzzTarget, Tokens } from './types';

function captureLogger(lines: string[]): winston.Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString('utf8'));
      callback();
    },
  });
  return winston.createLogger({ level: 'error', format: winston.format.json(), transports: [new winston.transports.Stream({ stream: sink })] });
}

export async function startFuzzTarget(mode: 'relaxed' | 'strict', options: { adminToken?: string | null; overrides?: Partial<BankConfig> } = {}): Promise<FuzzTarget> {
  const other = makeTestClient('fuzz-other');
  const clientsFile = writeClientsFile([other]);
  const errorLogs: string[] = [];
  const adminToken = options.adminToken === undefined ? ADMIN_TOKEN : options.adminToken;
  const bank = await startBank(
    {
      sandboxMode: mode,
      clientsFile,
      bodyLimitBytes: BODY_LIMIT,
      statusRatePerS: 1_000_000,
      statusRateBurst: 1_000_000,
      adminToken,
      connectorUrl: null,
      ...options.overrides,
    },
    { logger: captureLogger(errorLogs) },
  );
  const server = http.createServer(bank.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

  const tokenFor = async (clientId: string, secret: string, dpop?: DpopKey): Promise<string> => {
    let test = request(base).post('/oauth/token').auth(clientId, secret).type('form');
    if (dpop) test = test.set('DPoP', dpop.proof({ htm: 'POST', htu: `http://127.0.0.1:${port}/oauth/token`, iat: Math.floor(Date.now() / 1000) }));
    const response = await test.send({ grant_type: 'client_credentials' });
    if (response.status !== 200) throw new Error(`token for ${clientId}: ${response.status} ${response.text}`);
    return response.body.access_token as string;
  };
  const otherKey = signingKeyFromJwk(other.private_jwk);
  const { issuer, tokenAudience: audience } = bank.config;
  const tokens: Tokens = {
    demo: await tokenFor(demo.client_id, demo.client_secret),
    other: await tokenFor(other.client_id, other.client_secret),
    forgedKey: new TokenService({ ...otherKey, kid: bank.signer.kid }, bank.clock, issuer, audience, 3600).issue(demo.client_id, null).access_token,
    expired: new TokenService(bank.signer, { now: () => Date.now() - 2 * 3600_000 }, issuer, audience, 3600).issue(demo.client_id, null).access_token,
    wrongIssuer: new TokenService(bank.signer, bank.clock, 'another-bank', audience, 3600).issue(demo.client_id, null).access_token,
    ghost: new TokenService(bank.signer, bank.clock, issuer, audience, 3600).issue('ghost-client', null).access_token,
    dpopBound: await tokenFor(demo.client_id, demo.client_secret, new DpopKey()),
  };

  const target: FuzzTarget = {
    mode, bank, server, port, base, agent, other, adminToken, tokens, errorLogs,
    seeds: { demoRefs: [], otherRefs: [], sharedRef: '', demoIdemKey: '', demoIdemBody: '', spentNonces: [] },
    stats: { requests: 0, byCode: new Map(), byKind: new Map(), expectedSpent: new Set() },
    bodyLimit: BODY_LIMIT,
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      bank.close();
    },
  };
  await seed(target);
  return target;
}

/** Valid orders, an idempotency record and spent nonces, before the snapshot. */
async function seed(t: FuzzTarget): Promise<void> {
  const stamp = Date.now().toString(36);
  const shared = `SEED-SHARED-${stamp}`;
  const demoOrders = [
    order({ reference: `SEED-D1-${stamp}` }),
    order({ reference: `SEED-D2-${stamp}`, metadata: { sandbox_scenario: 'PENDING:1:SUCCESS' } }),
    order({ reference: `SEED-D3-${stamp}` }, '12.03'),
    order({ reference: shared }),
  ];
  for (const [index, body] of demoOrders.entries()) {
    const draft = baseCreate(t, 'demo', body);
    const response = await sendRequest(t, finalize(t, draft), 'raw');
    if (index === 0) {
      t.seeds.demoIdemKey = draft.fields['x-idempotency-key'];
      t.seeds.demoIdemBody = draft.body.toString('latin1');
    }
    if (t.mode === 'relaxed' && response.status !== 200) throw new Error(`seed create: ${response.status} ${response.text}`);
    if (response.status === 200) t.seeds.demoRefs.push(String(body.reference));
  }
  for (const body of [order({ reference: `SEED-O1-${stamp}` }), order({ reference: shared })]) {
    const response = await sendRequest(t, finalize(t, baseCreate(t, 'other', body)), 'raw');
    if (response.status === 200) t.seeds.otherRefs.push(String(body.reference));
  }
  if (t.seeds.demoRefs.includes(shared) && t.seeds.otherRefs.includes(shared)) t.seeds.sharedRef = shared;
  // Verified status requests for an unknown order spend their nonce (relaxed mode; strict refuses plain HTTP first).
  if (t.mode === 'relaxed') {
    for (let index = 0; index < 40; index += 1) {
      const draft = baseStatus(t, 'NO-SUCH-ORDER', 'demo');
      const response = await sendRequest(t, finalize(t, draft), 'raw');
      if (response.status !== 404) throw new Error(`seed status: ${response.status} ${response.text}`);
      t.seeds.spentNonces.push(draft.fields['x-nonce']);
    }
  }
}
