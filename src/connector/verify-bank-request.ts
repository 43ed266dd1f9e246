// The checks every request from the Bank passes (pull and callbacks), in the profile's order (section 5):
// media type, headers, client, authorization (pull only), timestamp, signature, nonce.
// What it shows a Connector team: rebuild the signature base from the request AS RECEIVED (raw target, raw
// body bytes), verify the detached JWS with the Bank's published key, and spend the nonce only once the
// signature verified, so a forged request cannot burn a nonce. The header, signature and signature-base checks
// are the exchange's shared ones (wire/verify-request); who may call and the nonce store are the Connector's.
import type { KeyObject } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { Request } from 'express';
import { withinWindow } from '../wire/freshness';
import { originForm } from '../wire/http-edge';
import { peekHeader } from '../wire/jws';
import { sameSecret } from '../wire/secrets';
import { SignedFlow } from '../wire/signature-base';
import { checkSignatureAsync, IncomingRequest, isFailure, KeyLookup, nonceExpiresAt, readSignedHeaders, VerifyFailure } from '../wire/verify-request';
import { BankJwks } from './bank-jwks';
import { ConnectorConfig } from './config';
import { Flaws } from './flaws';
import { Problem } from './problems';
import { ConnectorStore } from './store';

export type BankFlow = 'pull' | 'callback';

export interface VerifyDeps {
  config: ConnectorConfig;
  store: ConnectorStore;
  jwks: BankJwks;
  now: () => number;
  /** Deliberate flaws (flaws.ts); none unless given. */
  flaws?: Flaws;
}

const JSON_MEDIA_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

const problemOf = (failure: VerifyFailure) => new Problem(failure.code, failure.detail);

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

/** Throws a Problem when the request is not a fresh, signed request from the Bank. */
export async function verifyBankRequest(req: Request, rawBody: Buffer, flow: BankFlow, deps: VerifyDeps): Promise<void> {
  const { config, store } = deps;
  const flaws = deps.flaws ?? Flaws.NONE;
  const nowMs = deps.now();
  if (flow === 'callback') {
    const contentType = header(req, 'content-type');
    if (!contentType || !JSON_MEDIA_TYPE.test(contentType)) throw new Problem('unsupported_media_type', `Content-Type must be application/json, got "${contentType ?? ''}"`);
  }

  // Headers: the ones the flow signs must all be present (profile section 1 table), timestamp and nonce well formed.
  const signed = readSignedHeaders(flow, (name) => header(req, name));
  if (isFailure(signed)) throw problemOf(signed);
  const { values, timestampMs } = signed;

  if (values['x-client-id'] !== config.bankClientId) throw new Problem('client_unknown', `X-Client-Id must be ${config.bankClientId}`);
  checkPeerCertificate(req, config.bankClientId);
  if (flow === 'pull') checkPullToken(req, config.pullToken);

  const fresh = withinWindow(timestampMs, nowMs, config.timestampWindowS);
  if (!fresh && !flaws.has('accepts_stale_timestamp') /* FLAW accepts_stale_timestamp: lets a stale X-Timestamp through */) {
    throw new Problem('timestamp_out_of_window', `X-Timestamp is more than ${config.timestampWindowS} s from the connector's clock`);
  }
  // The request target exactly as it travelled: path and raw query, nothing re-encoded; an absolute-form target
  // (RFC 9112 section 3.2.2) without its scheme and authority.
  const request: IncomingRequest = { method: req.method, target: originForm(req.originalUrl), header: (name) => header(req, name), body: rawBody };
  const findKey: KeyLookup<Promise<KeyObject | null>> = (kid, alg) => deps.jwks.keyFor(kid, alg);
  const failure = await checkSignatureAsync(flow, request, findKey, KEY_OWNER);
  if (failure && !(await acceptedByFlaw(failure, flow, request, findKey, flaws)) /* FLAW accepts_bad_signature, accepts_alg_none, checks_only_digest */) {
    throw problemOf(failure);
  }
  const unused = store.spendNonce(config.bankClientId, values['x-nonce'], nowMs, nonceExpiresAt(timestampMs, nowMs, config.timestampWindowS));
  if (!unused && !flaws.has('accepts_replayed_nonce') /* FLAW accepts_replayed_nonce: lets a replayed X-Nonce through */) {
    throw new Problem('nonce_replayed', 'X-Nonce was already used within the acceptance window');
  }
}

const KEY_OWNER = "in the Bank's JWKS";

/**
 * The deliberately broken variants only (flaws.ts): whether a flaw lets this signature failure through.
 * accepts_bad_signature: the key was found and the alg is valid, but the signature does not verify over this
 * request's base (signature_mismatch), or the body no longer matches its Content-Digest while the signature's key
 * is known (digest_mismatch: checked again without the digest, to tell a known key from an unknown kid).
 * accepts_alg_none: the protected header says alg "none".
 * checks_only_digest: a callback whose body matched its Content-Digest (checked first) and whose key was found, but
 * whose signature does not verify over the base (signature_mismatch).
 */
async function acceptedByFlaw(failure: VerifyFailure, flow: SignedFlow, request: IncomingRequest, findKey: KeyLookup<Promise<KeyObject | null>>, flaws: Flaws): Promise<boolean> {
  if (failure.code !== 'signature_invalid') return false;
  if (flaws.has('accepts_alg_none') && peekHeader(request.header('x-signature') ?? '')?.alg === 'none') return true;
  if (flaws.has('checks_only_digest') && flow === 'callback' && failure.reason === 'signature_mismatch') return true;
  if (!flaws.has('accepts_bad_signature')) return false;
  if (failure.reason === 'signature_mismatch') return true;
  if (failure.reason !== 'digest_mismatch') return false;
  const withoutDigest: IncomingRequest = { ...request, header: (name) => (name === 'content-digest' ? undefined : request.header(name)) };
  const signatureOnly = await checkSignatureAsync(flow, withoutDigest, findKey, KEY_OWNER);
  return signatureOnly === null || signatureOnly.reason === 'signature_mismatch';
}
