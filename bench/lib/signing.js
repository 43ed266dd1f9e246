// Pre-signed Bank requests, built before a run so the load generator is not the bottleneck.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { signatureBase } = require('../../dist/wire/signature-base');
const { signDetached } = require('../../dist/wire/jws');
const { signingKeyFromJwk } = require('../../dist/wire/keys');

const ROOT = path.resolve(__dirname, '..', '..');
const credentials = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures/demo-connector/credentials.json'), 'utf8'));
const key = signingKeyFromJwk(credentials.private_jwk);
const RUN = crypto.randomBytes(4).toString('hex');

const isoNow = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const nonce = () => crypto.randomBytes(18).toString('base64url');

function sign(flow, method, target, headers, body) {
  return signDetached(signatureBase(flow, { method, target, headers, body }), key.privateKey, { alg: key.alg, kid: key.kid, typ: 'JOSE' });
}

async function fetchToken(baseUrl) {
  const response = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${credentials.client_id}:${credentials.client_secret}`).toString('base64')}` },
    body: 'grant_type=client_credentials',
  });
  if (response.status !== 200) throw new Error(`token: ${response.status} ${await response.text()}`);
  return (await response.json()).access_token;
}

function orderBody(reference, amount = '100.00') {
  return JSON.stringify({
    reference,
    initiated_at: '2026-11-22T09:00:00Z',
    reason: 'bench',
    type: 'CREDIT_TRANSFER',
    debtor: { name: 'Debtor', iban: 'DE89370400440532013000' },
    creditors: [{ name: 'Creditor', iban: 'FR1420041010050500013M02606', bank_code: 'BNPAFRPP', amount, reason: 'bench' }],
    total_amount: amount,
    currency: 'EUR',
  });
}

let sequence = 0;

/** One distinct, fully signed, valid create. */
function signedCreate(token) {
  sequence += 1;
  const reference = `BENCH-${RUN}-${sequence}`;
  const body = orderBody(reference);
  const headers = {
    'x-client-id': credentials.client_id,
    'x-request-id': `req-${RUN}-${sequence}`,
    'x-timestamp': isoNow(),
    'x-nonce': nonce(),
    'x-idempotency-key': `idem-${RUN}-${sequence}`,
  };
  headers['x-signature'] = sign('create', 'POST', '/payment-orders', headers, body);
  headers.authorization = `Bearer ${token}`;
  headers['content-type'] = 'application/json';
  return { method: 'POST', path: '/payment-orders', headers, body, reference };
}

function signedStatus(token, reference) {
  const target = `/payment-orders/${reference}/status`;
  const headers = { 'x-client-id': credentials.client_id, 'x-timestamp': isoNow(), 'x-nonce': nonce() };
  headers['x-signature'] = sign('status', 'GET', target, headers, '');
  headers.authorization = `Bearer ${token}`;
  return { method: 'GET', path: target, headers };
}

module.exports = { fetchToken, signedCreate, signedStatus, orderBody, credentials };
