// The per-request state that the pipeline steps read and fill in, and the services they share.
import type { Request } from 'express';
import type { Logger } from 'winston';
import { BankConfig } from '../config';
import { Clock } from '../../wire/clock';
import { AuthMethod, ClientRegistry, RegisteredClient } from '../security/client-registry';
import { SignedFlow } from '../../wire/signature-base';
import { AccessTokenClaims, TokenService } from '../security/tokens';
import type { GroupCommit } from '../store/group-commit';
import { NonceRepository } from '../store/nonces';
import { RateLimiter } from './rate-limiter';

export interface FlowSpec {
  flow: SignedFlow;
  /** Non-security headers that must be present and well formed (profile section 5, header_missing). */
  requiredHeaders: readonly string[];
  /** Authorization schemes the flow accepts, further narrowed by the client's auth_methods. */
  authMethods: readonly AuthMethod[];
  /** Whether the request carries a JSON body (media type is checked). */
  hasBody: boolean;
  /** Whether plain HTTP is refused with mtls_required outside relaxed mode. */
  requiresMtls: boolean;
  rateLimiter: RateLimiter;
}

export interface Exchange {
  req: Request;
  requestId: string;
  readonly log: Logger;
  rawBody: Buffer;
  /** SHA-256 of rawBody, taken once: the signature base's content-digest line and the idempotency fingerprint. */
  readonly bodySha256: Buffer;
  /** The order references the handler found in the body (an accepted create): the journal need not parse it again. */
  references?: readonly string[];
  nowMs: number;
  /** Single-valued request headers by lower-case name. */
  header(name: string): string | undefined;
  client?: RegisteredClient;
  token?: AccessTokenClaims;
  timestampMs?: number;
  /** A verified DPoP proof's jti, spent together with the nonce. */
  dpopJti?: { scope: string; jti: string; expiresAt: number };
}

export interface InboundServices {
  config: BankConfig;
  clock: Clock;
  registry: ClientRegistry;
  tokens: TokenService;
  nonces: NonceRepository;
  /** Group commit: the nonce and the create are written in a unit; answers wait for `committed()`. */
  writes: GroupCommit;
}

/**
 * A pipeline step: throws a ProblemError to refuse. Synchronous, except that a step may answer a Promise when it
 * must wait for I/O (the signature step, fetching a jwks_uri client's keys); the pipeline awaits only then.
 */
export type Step = (exchange: Exchange, services: InboundServices, spec: FlowSpec) => void | Promise<void>;

export function requireClient(exchange: Exchange): RegisteredClient {
  if (!exchange.client) throw new Error('pipeline order: client step has not run');
  return exchange.client;
}
