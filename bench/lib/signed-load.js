// The signed load that profile.js, statements.js, allocations.js and gc.js send: pre-signed requests, each sent
// once, over keep-alive.
'use strict';
const autocannon = require('autocannon');
const { freePort, stop, waitForAnswer } = require('./processes');
const { fetchToken, signedCreate, signedStatus } = require('./signing');

/**
 * One autocannon run, answering its result and `seconds`: with `amount`, from the first request to the last answer
 * (every request of `options.requests` is timed), else autocannon's own duration. Why: with `amount`, autocannon
 * stops on its one-second tick after the last answer, so its duration rounds up to whole seconds (20,000 requests
 * at 3,500/s would read 3,333/s).
 */
async function timedLoad(options) {
  const startedAt = performance.now();
  let lastAnswerAt = startedAt;
  const requests = options.requests?.map((request) => ({ ...request, onResponse: () => void (lastAnswerAt = performance.now()) }));
  const result = await autocannon({ pipelining: 1, ...options, ...(requests ? { requests } : {}) });
  return { ...result, seconds: options.amount ? (lastAnswerAt - startedAt) / 1000 : result.duration };
}

/** Sends each request of `pool` once, `connections` at a time, without pipelining (timedLoad's result). */
function firePool(base, pool, connections) {
  let next = 0;
  return timedLoad({ url: base, connections, amount: pool.length, requests: [{ setupRequest: (req) => ({ ...req, ...pool[next++] }) }] });
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

/**
 * A server under this load, as the profiling tools look at one: `start(port)` launches it (`server`: bank, or a limit
 * server, which ignores the token), `warmUp` requests go first, then `afterWarmUp(child)` runs, then the `requests`
 * measured, then `afterLoad(child)`, all at c=`connections` and signed beforehand (so no idle pause falls between
 * warm-up and load). The server is stopped before this answers the load's result and `before`: the requests it took
 * ahead of the measured ones (the token, the seeded orders, the warm-up), for figures per request over the whole
 * process.
 */
async function underSignedLoad({ server, flow, requests, connections = 20, warmUp = 0, afterWarmUp = () => undefined, afterLoad = () => undefined, start }) {
  const port = await freePort();
  const child = start(port);
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForAnswer(`${base}/readyz`, performance.now(), { wantStatus: 200 });
    const token = server === 'bank' ? await fetchToken(base) : 'x'.repeat(400);
    const { request, seeded } = await signedRequests(base, token, flow);
    const warm = Array.from({ length: warmUp }, (_, index) => request(index));
    const pool = Array.from({ length: requests }, (_, index) => request(warmUp + index));
    if (warm.length > 0) await firePool(base, warm, connections);
    await afterWarmUp(child);
    const result = await firePool(base, pool, connections);
    await afterLoad(child);
    return { result, before: seeded + warmUp + (server === 'bank' ? 1 : 0) };
  } finally {
    await stop(child);
  }
}

module.exports = { firePool, signedRequests, timedLoad, underSignedLoad };
