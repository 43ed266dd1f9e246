// The fuzz target's shape (a Bank on a listening socket with a second client, tokens and seeded state) and the
// constants the generators share.
import http from 'node:http';
import type { Bank } from '../../../src/bank/bank';
import { TestClient } from '../../helpers/clients';

export interface Tokens {
  demo: string;
  other: string;
  /** Bank-format token for demo-connector, signed by another key under the Bank's kid. */
  forgedKey: string;
  /** Correctly signed by the Bank, expired an hour ago. */
  expired: string;
  /** Correctly signed by the Bank, with another issuer. */
  wrongIssuer: string;
  /** Correctly signed by the Bank for a client that is not registered. */
  ghost: string;
  /** A DPoP-bound token of demo-connector. */
  dpopBound: string;
}

export interface Seeds {
  /** References of demo-connector's orders (one of them PENDING and due: any leak to the handler would settle it). */
  demoRefs: string[];
  otherRefs: string[];
  /** A reference used by both clients (admin lookup without client_id is ambiguous). */
  sharedRef: string;
  /** An idempotency key of demo-connector and the body it was first used with. */
  demoIdemKey: string;
  demoIdemBody: string;
  /** Nonces already spent by demo-connector (verified requests). */
  spentNonces: string[];
}

export interface FuzzStats {
  requests: number;
  byCode: Map<string, number>;
  byKind: Map<string, number>;
  /** `${client}|${nonce}` of every answered request that passed the nonce check. */
  expectedSpent: Set<string>;
}

export interface FuzzTarget {
  mode: 'relaxed' | 'strict';
  bank: Bank;
  server: http.Server;
  port: number;
  base: string;
  agent: http.Agent;
  other: TestClient;
  adminToken: string | null;
  tokens: Tokens;
  seeds: Seeds;
  /** winston lines at level error (an "unhandled error" is a 500 in the making). */
  errorLogs: string[];
  stats: FuzzStats;
  bodyLimit: number;
  close(): Promise<void>;
}

export const ADMIN_TOKEN = 'fuzz-admin-token-0123456789';
export const BODY_LIMIT = 4096;
