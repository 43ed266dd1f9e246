#!/usr/bin/env node
// Example Connector: creates one payment order at the Sandbox Bank, then reverse-polls its status until
// the status is final. Plain Node.js (>= 20), no dependencies and no project imports: copy it and adapt it.
//
//   node scripts/example-create-and-poll.js [AMOUNT] [SCENARIO]
//   npm run example -- 42.04
//   npm run example -- 10.00 ASYNC:3:FAILED:BUS_ACCOUNT_BLOCKED
//
// AMOUNT defaults to 42.03 (the default rules: PENDING, then SUCCESS after 5 s). SCENARIO, when given, is
// sent as metadata.sandbox_scenario (SUCCESS, FAILED:<reasonCode>, PENDING:<s>:<final>, ASYNC:<s>:<final>,
// NO_CALLBACK, DUPLICATE_CALLBACK).
//
// Environment:
//   BANK_URL          plain-HTTP base address, for the token and the create (default http://localhost:8080)
//   BANK_TLS_URL      HTTPS (mTLS) base address, for reverse polling (default https://localhost:8443)
//   DATA_DIR          the bank's data directory; its dev PKI holds the client certificate (default ./data)
//   PKI_DIR           the bank's dev PKI, when it is not DATA_DIR/pki
//   CREDENTIALS_FILE  the Connector's credentials (default fixtures/demo-connector/credentials.json)
//   POLL_TIMEOUT_S    give up polling after this many seconds (default 120)
//
// Reverse polling needs mTLS in the bank's default (strict) mode. When PKI_DIR/clients/<client>.crt,
// <client>.key and PKI_DIR/ca.crt exist, the script polls over BANK_TLS_URL with that certificate;
// otherwise it polls over BANK_URL, which the bank accepts only with SANDBOX_MODE=relaxed.
//
// Exit code: 0 when the order reached a final status (SUCCESS or FAILED), 1 otherwise.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const BANK_URL = (process.env.BANK_URL || 'http://localhost:8080').replace(/\/+$/, '');
const BANK_TLS_URL = (process.env.BANK_TLS_URL || 'https://localhost:8443').replace(/\/+$/, '');
const DATA_DIR = path.resolve(process.env.DATA_DIR || 'data');
const PKI_DIR = path.resolve(process.env.PKI_DIR || path.join(DATA_DIR, 'pki'));
const CREDENTIALS_FILE = path.resolve(ROOT, process.env.CREDENTIALS_FILE || 'fixtures/demo-connector/credentials.json');
const POLL_TIMEOUT_S = Number(process.env.POLL_TIMEOUT_S || 120);

const credentials = JSON.parse(fs.readFileSync(CREDENTIALS_FILE, 'utf8'));
const CLIENT_ID = credentials.client_id;
const signingKey = crypto.createPrivateKey({ key: credentials.private_jwk, format: 'jwk' });

// ---------------------------------------------------------------------------------------------------------
// HTTP: one small helper over node:http / node:https, so the same code can add a client certificate.

function send(url, { method = 'GET', headers = {}, body, tls } = {}) {
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(
      target,
      { method, headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) }, ...tls },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    request.on('error', reject);
    request.setTimeout(30_000, () => request.destroy(new Error(`no answer from ${target.origin} within 30 s`)));
    request.end(body);
  });
}

function printAnswer(label, answer) {
  console.log(`<- ${label}: HTTP ${answer.status}${answer.headers['retry-after'] ? ` (Retry-After: ${answer.headers['retry-after']})` : ''}`);
  if (answer.text === '') {
    console.log(`   (no body, Content-Length: ${answer.headers['content-length']})`);
    return;
  }
  try {
    console.log(JSON.stringify(JSON.parse(answer.text), null, 2).replace(/^/gm, '   '));
  } catch {
    console.log(`   ${answer.text}`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Security headers (Sandbox Bank wire profile, sections 1 to 3).

/** RFC 3339 UTC with Z; the bank accepts it within ±300 s of its clock. */
const timestamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** 16 to 128 characters of [A-Za-z0-9_-], never reused. */
const nonce = () => crypto.randomBytes(18).toString('base64url');

/** RFC 9530 form: sha-256=:<standard base64 of SHA-256 over the raw body bytes>: */
const contentDigest = (rawBody) => `sha-256=:${crypto.createHash('sha256').update(rawBody).digest('base64')}:`;

/**
 * The signature base: "name: value" lines joined by "\n", no trailing newline. `signedHeaders` lists the
 * flow's headers in the profile's order (lower-case names, values exactly as sent).
 */
function signatureBase(method, target, signedHeaders, headers, rawBody) {
  const lines = [`@method: ${method.toUpperCase()}`, `@target-uri: ${target}`];
  for (const name of signedHeaders) lines.push(`${name}: ${headers[name]}`);
  lines.push(`content-digest: ${contentDigest(rawBody)}`);
  return lines.join('\n');
}

/** Compact JWS, detached payload: BASE64URL(protected) + ".." + BASE64URL(signature). ES256, raw r||s. */
function detachedJws(payload) {
  const protectedHeader = Buffer.from(JSON.stringify({ alg: 'ES256', kid: credentials.private_jwk.kid, typ: 'JOSE' })).toString('base64url');
  const signingInput = `${protectedHeader}.${Buffer.from(payload, 'utf8').toString('base64url')}`;
  const signature = crypto.sign('sha256', Buffer.from(signingInput), { key: signingKey, dsaEncoding: 'ieee-p1363' });
  return `${protectedHeader}..${signature.toString('base64url')}`;
}

function printBase(base) {
  console.log('   signature base:');
  for (const line of base.split('\n')) console.log(`     ${line}`);
}

// ---------------------------------------------------------------------------------------------------------
// 1. Access token: OAuth 2.0 client_credentials with client_secret_basic.

async function getToken() {
  const basic = Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(credentials.client_secret)}`).toString('base64');
  console.log(`-> POST ${BANK_URL}/oauth/token (client_credentials, client_secret_basic)`);
  const answer = await send(`${BANK_URL}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  if (answer.status !== 200) {
    printAnswer('token', answer);
    throw new Error('could not get an access token');
  }
  const token = JSON.parse(answer.text);
  console.log(`<- token: HTTP 200, token_type ${token.token_type}, expires_in ${token.expires_in} s (the token itself is not printed)`);
  return token.access_token;
}

// ---------------------------------------------------------------------------------------------------------
// 2. Create: POST /payment-orders, signed over x-client-id, x-request-id, x-timestamp, x-nonce,
//    x-idempotency-key and the body digest.

function buildOrder(amount, scenario) {
  const reference = `EXAMPLE-${Date.now()}-${crypto.randomBytes(3).toString('hex')}`;
  const metadata = { initiator: 'example-create-and-poll' };
  if (scenario) metadata.sandbox_scenario = scenario;
  return {
    reference,
    initiated_at: timestamp(),
    reason: 'Example order',
    type: 'DIRECT_DEBIT',
    debtor: { name: 'Alice Debtor', iban: 'DE89370400440532013000' },
    creditors: [{ name: 'Bob Creditor', iban: 'FR1420041010050500013M02606', bank_code: 'BNPAFRPP', amount, reason: 'Invoice 42' }],
    total_amount: amount,
    currency: 'EUR',
    metadata,
  };
}

async function createOrder(token, order) {
  const target = '/payment-orders';
  const rawBody = JSON.stringify(order); // these exact bytes are digested and sent
  const headers = {
    'x-client-id': CLIENT_ID,
    'x-request-id': crypto.randomUUID(),
    'x-timestamp': timestamp(),
    'x-nonce': nonce(),
    'x-idempotency-key': `${order.reference}-create`,
  };
  const base = signatureBase('POST', target, ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'], headers, rawBody);
  console.log(`\n-> POST ${BANK_URL}${target} (reference ${order.reference}, total_amount ${order.total_amount})`);
  printBase(base);
  return send(`${BANK_URL}${target}`, {
    method: 'POST',
    headers: { ...headers, 'x-signature': detachedJws(base), authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: rawBody,
  });
}

// ---------------------------------------------------------------------------------------------------------
// 3. Reverse polling: GET /payment-orders/{reference}/status, signed over x-client-id, x-timestamp, x-nonce
//    and the digest of the empty body. Over mTLS when the dev PKI files exist.

function statusTransport() {
  const files = {
    cert: path.join(PKI_DIR, 'clients', `${CLIENT_ID}.crt`),
    key: path.join(PKI_DIR, 'clients', `${CLIENT_ID}.key`),
    ca: path.join(PKI_DIR, 'ca.crt'),
  };
  const missing = Object.values(files).filter((file) => !fs.existsSync(file));
  if (missing.length === 0) {
    console.log(`\nreverse polling over mTLS at ${BANK_TLS_URL} with ${files.cert}`);
    return { baseUrl: BANK_TLS_URL, tls: { cert: fs.readFileSync(files.cert), key: fs.readFileSync(files.key), ca: fs.readFileSync(files.ca) } };
  }
  console.log(`\nno client certificate yet (missing ${missing.join(', ')}):`);
  console.log(`reverse polling over plain HTTP at ${BANK_URL}, which the bank allows only with SANDBOX_MODE=relaxed`);
  return { baseUrl: BANK_URL, tls: undefined };
}

async function getStatus(token, reference, transport) {
  const target = `/payment-orders/${encodeURIComponent(reference)}/status`;
  const headers = { 'x-client-id': CLIENT_ID, 'x-timestamp': timestamp(), 'x-nonce': nonce() };
  const base = signatureBase('GET', target, ['x-client-id', 'x-timestamp', 'x-nonce'], headers, '');
  console.log(`\n-> GET ${transport.baseUrl}${target}`);
  printBase(base);
  return send(`${transport.baseUrl}${target}`, {
    headers: { ...headers, 'x-signature': detachedJws(base), authorization: `Bearer ${token}` },
    tls: transport.tls,
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const isFinal = (status) => status === 'SUCCESS' || status === 'FAILED';

/** Polls until a final status; the interval starts at 1 s and grows by half up to 10 s. */
async function pollUntilFinal(token, reference) {
  const transport = statusTransport();
  const deadline = Date.now() + POLL_TIMEOUT_S * 1000;
  let intervalMs = 1000;
  let networkErrors = 0;
  while (Date.now() < deadline) {
    let answer;
    try {
      answer = await getStatus(token, reference, transport);
      networkErrors = 0;
    } catch (error) {
      networkErrors += 1;
      console.log(`<- status: network error: ${error.message}`);
      if (networkErrors >= 3) return false;
    }
    if (answer) {
      printAnswer('status', answer);
      if (answer.status === 200) {
        const body = JSON.parse(answer.text);
        if (isFinal(body.status)) return true;
      } else if (answer.status === 429) {
        intervalMs = Math.max(intervalMs, Number(answer.headers['retry-after'] || 1) * 1000);
      } else if (answer.status < 500) {
        // 404: unknown order, stop and alert. 401/403: a configuration problem that retrying will not fix.
        if (answer.status === 403) console.log('   hint: start the bank with SANDBOX_MODE=relaxed, or let it create its dev PKI and use mTLS');
        return false;
      }
    }
    await sleep(intervalMs);
    intervalMs = Math.min(intervalMs * 1.5, 10_000);
  }
  console.log(`\nno final status within ${POLL_TIMEOUT_S} s (POLL_TIMEOUT_S)`);
  return false;
}

// ---------------------------------------------------------------------------------------------------------

function parseArguments(args) {
  let amount = '42.03';
  let scenario;
  for (const arg of args) {
    if (/^(0|[1-9][0-9]{0,14})(\.[0-9]{1,2})?$/.test(arg)) amount = arg;
    else scenario = arg;
  }
  return { amount, scenario };
}

async function main() {
  const { amount, scenario } = parseArguments(process.argv.slice(2));
  const token = await getToken();
  const order = buildOrder(amount, scenario);
  const created = await createOrder(token, order);
  printAnswer('create', created);

  if (created.status === 200) {
    const body = JSON.parse(created.text);
    if (isFinal(body.status)) {
      // The contract: a 200 answer is definitive, and reverse polling applies only to PENDING or 202 orders.
      console.log(`\nfinal status ${body.status} in the create answer: nothing to poll`);
      return true;
    }
  } else if (created.status !== 202) {
    return false;
  }
  const final = await pollUntilFinal(token, order.reference);
  if (final) console.log('\nfinal status reached');
  return final;
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (error) => {
    console.error(`example failed: ${error.message}`);
    process.exit(1);
  },
);
