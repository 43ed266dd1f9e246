#!/usr/bin/env node
// Registers a new sandbox client: generates its ES256 signing key, OAuth client secret and API key,
// writes the private material to fixtures/<id>/credentials.json (sandbox-only) and adds the public
// part (hashes and public JWK) to the client registry.
//   node scripts/new-client.js <client-id> [--clients fixtures/clients.json] [--connector-url http://localhost:9090]
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
require('./build-if-needed.js');
// The Bank's own hashing (wire/secrets) and RFC 7638 thumbprint (wire/keys), so the registry always matches what it checks.
const { hashSecret } = require('../dist/wire/secrets.js');
const { jwkThumbprint } = require('../dist/wire/keys.js');

function arg(name, fallback) {
  const index = process.argv.indexOf(name);
  return index > 0 ? process.argv[index + 1] : fallback;
}

const USAGE = 'usage: node scripts/new-client.js <client-id> [--clients FILE] [--connector-url URL]';
const clientId = process.argv[2];
if (clientId === '--help' || clientId === '-h') {
  console.log(USAGE);
  process.exit(0);
}
// An id that starts with '-' is an option put first by mistake, not a client to register.
if (!clientId || clientId.startsWith('-') || !/^[A-Za-z0-9._-]{1,64}$/.test(clientId)) {
  console.error(USAGE);
  process.exit(2);
}
const clientsFile = arg('--clients', path.join('fixtures', 'clients.json'));
const connectorUrl = arg('--connector-url', 'http://localhost:9090');

const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
const privateJwk = privateKey.export({ format: 'jwk' });
privateJwk.kid = `${clientId}-${jwkThumbprint(privateJwk).slice(0, 16)}`;
privateJwk.alg = 'ES256';
privateJwk.use = 'sig';
const { d: _d, ...publicJwk } = privateJwk;

const credentials = {
  _warning: 'SANDBOX-ONLY credentials. Never use these keys or secrets anywhere real.',
  client_id: clientId,
  client_secret: crypto.randomBytes(24).toString('base64url'),
  api_key: `sbk_${crypto.randomBytes(24).toString('base64url')}`,
  private_jwk: privateJwk,
};

const registry = fs.existsSync(clientsFile) ? JSON.parse(fs.readFileSync(clientsFile, 'utf8')) : { clients: [] };
if (registry.clients.some((client) => client.client_id === clientId)) {
  console.error(`${clientsFile} already declares ${clientId}`);
  process.exit(1);
}
registry.clients.push({
  client_id: clientId,
  name: clientId,
  jwks: { keys: [publicJwk] },
  client_secret_hash: hashSecret(credentials.client_secret),
  api_key_hash: hashSecret(credentials.api_key),
  auth_methods: ['bearer', 'dpop', 'api_key'],
  connector_base_url: connectorUrl,
});

const dir = path.join(path.dirname(clientsFile), clientId);
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, 'credentials.json'), JSON.stringify(credentials, null, 2) + '\n');
fs.writeFileSync(clientsFile, JSON.stringify(registry, null, 2) + '\n');
console.log(`registered ${clientId} in ${clientsFile}; private material in ${path.join(dir, 'credentials.json')}`);
