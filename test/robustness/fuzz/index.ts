// Shared machinery of the fuzz suites (fuzz.test.ts in `npm test`, long/fuzz-long.test.ts in `npm run test:long`),
// split by what it makes:
//   types.ts, target.ts      a Bank on a listening loopback socket with a second client, tokens, seeded orders and
//                            spent nonces
//   requests.ts              orders, drafts (a correctly signed request described by its parts) and their wire form
//   values.ts                malformed header values and garbage
//   mutation.ts              what a mutation is
//   header-mutations.ts      required headers dropped, emptied, malformed or altered after signing; freshness
//   signature-mutations.ts   X-Signature broken, or valid by another key or over other parts
//   auth-mutations.ts        bad Authorization; POST /oauth/token requests (client auth, grant, DPoP)
//   body-mutations.ts        create bodies and Content-Type
//   order-requests.ts        whole create and reverse-polling requests
//   route-requests.ts        health, JWKS, unknown routes, /sandbox/*
//   raw-requests.ts          repeated headers, non-UTF-8 header bytes, chunked bodies, odd targets
//   transport.ts             senders: supertest, node:http with exact headers, a raw socket
//   oracle.ts, store-snapshot.ts   the checks every answer passes, and the store and nonce checks after a run
//   run.ts                   batches of concurrent requests; the per-code summary
// This index re-exports what the suites use.
export { adminBadRequests, otherRequests, sandboxRequests } from './route-requests';
export { checkAfterRun } from './oracle';
export { createRequests, statusRequests } from './order-requests';
export { describeStats, runBatches } from './run';
export { nonceRows, snapshotStore } from './store-snapshot';
export { rawRequests } from './raw-requests';
export type { RequestArb } from './requests';
export { sendBytes } from './transport';
export { startFuzzTarget } from './target';
export { tokenRequests } from './auth-mutations';
export type { FuzzTarget } from './types';
