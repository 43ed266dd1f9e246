// The Connector guide's section 3 snippet, verifyBankSignature, run as written: taken from
// docs/connector-guide.md and used in an express server the way its own comment says (express.raw(), a router
// mounted on a path), against requests signed the way the Bank signs its callbacks and pulls.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import express from 'express';
import request from 'supertest';
import { systemClock } from '../../src/wire/clock';
import { generateSigningJwk, publicOnly, signingKeyFromJwk, SigningKey } from '../../src/wire/keys';
import { ROOT } from '../helpers/bank';
import { bankSignedHeaders } from './helpers';

type Verify = (req: express.Request, rawBody: Buffer, jwks: { keys: unknown[] }) => boolean;

/** The ```js block of the guide that defines verifyBankSignature, evaluated as a CommonJS script. */
function guideSnippet(): Verify {
  const guide = fs.readFileSync(path.join(ROOT, 'docs/connector-guide.md'), 'utf8');
  const blocks = [...guide.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1].replace(/^ {3}/gm, ''));
  const snippet = blocks.find((block) => block.includes('function verifyBankSignature('));
  if (!snippet) throw new Error('docs/connector-guide.md has no verifyBankSignature snippet');
  return new Function('require', `${snippet}\nreturn verifyBankSignature;`)(require) as Verify;
}

describe("the guide's verifyBankSignature, in an express server as its comment says", () => {
  let signer: SigningKey;
  let jwks: { keys: unknown[] };
  let app: express.Express;

  beforeAll(async () => {
    const jwk = await generateSigningJwk();
    signer = signingKeyFromJwk(jwk);
    jwks = { keys: [publicOnly(jwk)] };
    const verify = guideSnippet();
    const answer = (req: express.Request, res: express.Response) => void res.json({ verified: verify(req, Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), jwks) });
    // The callbacks on a router mounted at /callbacks: inside it, req.url lacks the mount path.
    const callbacks = express.Router();
    callbacks.post('/orders/status', answer);
    callbacks.post('/orders/status/batch', answer);
    app = express();
    app.use(express.raw({ type: () => true }));
    app.use('/callbacks', callbacks);
    app.post('/unmounted/callback', answer);
  });

  it.each(['/callbacks/orders/status', '/callbacks/orders/status/batch', '/unmounted/callback'])('verifies a callback the Bank signed, on %s', async (target) => {
    const body = JSON.stringify({ reference: 'GUIDE-1', bank_reference: 'BNK-1', status: 'SUCCESS', processed_at: '2026-11-22T09:00:00Z' });
    const headers = bankSignedHeaders(signer, 'callback', 'POST', target, body, systemClock);
    const response = await request(app).post(target).set({ ...headers, 'content-type': 'application/json' }).send(body);
    expect(response.body).toEqual({ verified: true });
  });

  it('refuses a callback whose body was changed after signing', async () => {
    const target = '/callbacks/orders/status';
    const body = JSON.stringify({ reference: 'GUIDE-2', bank_reference: 'BNK-2', status: 'SUCCESS', processed_at: '2026-11-22T09:00:00Z' });
    const headers = bankSignedHeaders(signer, 'callback', 'POST', target, body, systemClock);
    const response = await request(app).post(target).set({ ...headers, 'content-type': 'application/json' }).send(body.replace('SUCCESS', 'FAILED'));
    expect(response.body).toEqual({ verified: false });
  });

  it('refuses a callback signed for another path', async () => {
    const body = JSON.stringify({ reference: 'GUIDE-3' });
    const headers = bankSignedHeaders(signer, 'callback', 'POST', '/orders/status', body, systemClock);
    const response = await request(app).post('/callbacks/orders/status').set({ ...headers, 'content-type': 'application/json' }).send(body);
    expect(response.body).toEqual({ verified: false });
  });

  it('still works in a plain node:http server (no originalUrl there: req.url is the whole path)', async () => {
    const verify = guideSnippet();
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => void res.end(JSON.stringify({ verified: verify(req as express.Request, Buffer.concat(chunks), jwks) })));
    });
    try {
      const target = '/callbacks/orders/status';
      const body = JSON.stringify({ reference: 'GUIDE-4' });
      const headers = bankSignedHeaders(signer, 'callback', 'POST', target, body, systemClock);
      const response = await request(server).post(target).set({ ...headers, 'content-type': 'application/json' }).send(body);
      expect(JSON.parse(response.text)).toEqual({ verified: true });
    } finally {
      server.close();
    }
  });
});
