// The checks every request from the Bank passes (pull and callbacks), in the profile's order (section 5):
// media type, headers, client, authorization (pull only), timestamp, signature, nonce.
// What it shows a Connector team: rebuild the signature base from the request AS RECEIVED (raw target, raw
// body bytes), verify the detached JWS with the Bank's published key, and spend the nonce only once the
// signature verified, so a forged request cannot burn a nonce.
import type { TLSSocket } from 'node:tls';
import type { Request } from 'express';
import { isNonce, parseTimestamp, withinWindow } from '../wire/freshness';
import { sameSecret } from '../wire/secrets';
import { JwsFormatError, parseDetached, verifyDetached } from '../wire/jws';
import { SIGNED_HEADERS, signatureBase } from '../wire/signature-base';
import { BankJwks } from './bank-jwks';
import { ConnectorConfig } from './config';
import { Problem } from './problems';
import { ConnectorStore } from './store';

export type BankFlow = 'pull' | 'callback';

export interface VerifyDeps {
  config: ConnectorConfig;
  store: ConnectorStore;
  jwks: BankJwks;
  now: () => number;
}

const JSON_MEDIA_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** With TLS on, the Bank's client certificate must name the Bank (CN = BANK_CLIENT_ID). */
function checkPeerCertificate(req: Request, bankClientId: string): void {
  const socket = req.socket as TLSSocket;
  if (!socket.encrypted) return;
  const cn = socket.getPeerCertificate()?.subject?.CN;
  const name = Array.isArray(cn) ? cn[0] : cn;
  if (name !== bankClientId) throw new Problem('auth_invalid', `the client certificate is issued to "${name ?? ''}", not to ${bankClientId}`);
}

function checkPullToken(req: Request, pullToken: string): void {
  const authorization = header(req, 'authorization');
  if (!authorization) throw new Problem('auth_missing', 'send Authorization: Bearer <token>');
  const match = /^Bearer +(\S+)$/i.exec(authorization.trim());
  if (!match || !sameSecret(match[1], pullToken)) throw new Problem('auth_invalid', 'the Bearer token is not valid');
}

async function checkSignature(req: Request, rawBody: Buffer, flow: BankFlow, headers: Record<string, string>, jwks: BankJwks): Promise<void> {
  const signature = header(req, 'x-signature');
  if (!signature) throw new Problem('signature_missing', 'X-Signature is required (a detached JWS over the signature base)');
  let parsed;
  try {
    parsed = parseDetached(signature);
  } catch (error) {
    if (error instanceof JwsFormatError) throw new Problem('signature_invalid', error.message);
    throw error;
  }
  const key = await jwks.keyFor(parsed.header.kid, parsed.header.alg);
  if (!key) throw new Problem('signature_invalid', `kid "${parsed.header.kid}" is not a ${parsed.header.alg} key in the Bank's JWKS`);
  // req.originalUrl is the request target exactly as it travelled: path and raw query, nothing re-encoded.
  const base = signatureBase(flow, { method: req.method, target: req.originalUrl, headers, body: rawBody });
  if (!verifyDetached(parsed, base, key)) throw new Problem('signature_invalid', 'the signature does not match the signature base of this request');
}

/** Throws a Problem when the request is not a fresh, signed request from the Bank. */
export async function verifyBankRequest(req: Request, rawBody: Buffer, flow: BankFlow, deps: VerifyDeps): Promise<void> {
  const { config, store } = deps;
  const nowMs = deps.now();
  if (flow === 'callback') {
    const contentType = header(req, 'content-type');
    if (!contentType || !JSON_MEDIA_TYPE.test(contentType)) throw new Problem('unsupported_media_type', `Content-Type must be application/json, got "${contentType ?? ''}"`);
  }

  // Headers: the ones the flow signs must all be present (profile section 1 table).
  const headers: Record<string, string> = {};
  for (const name of SIGNED_HEADERS[flow]) {
    const value = header(req, name);
    if (value === undefined || value === '') throw new Problem('header_missing', `${name} is required`);
    headers[name] = value;
  }
  const timestampMs = parseTimestamp(headers['x-timestamp']);
  if (timestampMs === null) throw new Problem('header_invalid', 'x-timestamp must be an RFC 3339 UTC instant ending in Z');
  if (!isNonce(headers['x-nonce'])) throw new Problem('header_invalid', 'x-nonce must be 16 to 128 characters of [A-Za-z0-9_-]');

  if (headers['x-client-id'] !== config.bankClientId) throw new Problem('client_unknown', `X-Client-Id must be ${config.bankClientId}`);
  checkPeerCertificate(req, config.bankClientId);
  if (flow === 'pull') checkPullToken(req, config.pullToken);

  if (!withinWindow(timestampMs, nowMs, config.timestampWindowS)) {
    throw new Problem('timestamp_out_of_window', `X-Timestamp is more than ${config.timestampWindowS} s from the connector's clock`);
  }
  await checkSignature(req, rawBody, flow, headers, deps.jwks);
  const expiresAt = Math.max(timestampMs, nowMs) + config.timestampWindowS * 1000;
  if (!store.spendNonce(config.bankClientId, headers['x-nonce'], nowMs, expiresAt)) {
    throw new Problem('nonce_replayed', 'X-Nonce was already used within the acceptance window');
  }
}
