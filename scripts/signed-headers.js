#!/usr/bin/env node
// Prints the headers of a signed request, one per line, for `curl -H @-`:
//   node scripts/signed-headers.js GET /payment-orders/ORDER_REF/status | curl -H @- --cert ... URL
// Reverse polling (GET .../status) authenticates with the demo client's API key, so no token is needed.
// Only node:crypto and the profile's text: the signature base is built exactly as sandbox-profile.md section 1 says.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const [method = 'GET', target] = process.argv.slice(2);
if (!target || method.toUpperCase() !== 'GET' || !/^\/payment-orders\/[^/]+\/status(\?.*)?$/.test(target)) {
  console.error('usage: node scripts/signed-headers.js GET /payment-orders/<reference>/status');
  process.exit(2);
}
const credentialsFile = process.env.CREDENTIALS_FILE || path.join(__dirname, '..', 'fixtures', 'demo-connector', 'credentials.json');
const credentials = JSON.parse(fs.readFileSync(credentialsFile, 'utf8'));

const headers = {
  'x-client-id': credentials.client_id,
  'x-timestamp': new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
  'x-nonce': crypto.randomBytes(18).toString('base64url'),
};
const emptyBodyDigest = `sha-256=:${crypto.createHash('sha256').update('').digest('base64')}:`;
const base = [
  `@method: GET`,
  `@target-uri: ${target}`,
  `x-client-id: ${headers['x-client-id']}`,
  `x-timestamp: ${headers['x-timestamp']}`,
  `x-nonce: ${headers['x-nonce']}`,
  `content-digest: ${emptyBodyDigest}`,
].join('\n');
const jwk = credentials.private_jwk;
const protectedHeader = Buffer.from(JSON.stringify({ alg: 'ES256', kid: jwk.kid, typ: 'JOSE' })).toString('base64url');
const signingInput = `${protectedHeader}.${Buffer.from(base).toString('base64url')}`;
const key = crypto.createPrivateKey({ key: jwk, format: 'jwk' });
const signature = crypto.sign('sha256', Buffer.from(signingInput), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');

console.log(`X-Client-Id: ${headers['x-client-id']}`);
console.log(`X-Timestamp: ${headers['x-timestamp']}`);
console.log(`X-Nonce: ${headers['x-nonce']}`);
console.log(`X-Signature: ${protectedHeader}..${signature}`);
console.log(`Authorization: X-API-Key ${credentials.api_key}`);
