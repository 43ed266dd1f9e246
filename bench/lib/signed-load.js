// The signed load that profile.js and gc.js send: pre-signed requests, each sent once, over keep-alive.
'use strict';
const autocannon = require('autocannon');
const { signedCreate, signedStatus } = require('./signing');

/** Sends each request of `pool` once, `connections` at a time, without pipelining. */
function firePool(base, pool, connections) {
  let next = 0;
  return autocannon({ url: base, connections, pipelining: 1, amount: pool.length, requests: [{ setupRequest: (req) => ({ ...req, ...pool[next++] }) }] });
}

/**
 * The request maker of a flow: a fresh signed create each time, or a signed status poll of one of 500 orders
 * created here first (their number is `seeded`, for per-request figures).
 */
async function signedRequests(base, token, flow) {
  if (flow === 'create') return { request: () => signedCreate(token), seeded: 0 };
  const seeds = Array.from({ length: 500 }, () => signedCreate(token));
  await firePool(base, seeds, 10);
  const references = seeds.map((seed) => seed.reference);
  return { request: (index) => signedStatus(token, references[index % references.length]), seeded: references.length };
}

module.exports = { firePool, signedRequests };
