// Soak: the Bank (child process) under mixed signed requests (creates and reverse polls, signed on the fly),
// with its RSS sampled every 10 s. Reports the slope of RSS over time after the first sample, and the change from
// the sample at a tenth of the requests to the last.
'use strict';
const path = require('node:path');
const autocannon = require('autocannon');
const { freePort, startBank, waitForAnswer, treeRssMb, stop, tempDir } = require('./lib/processes');
const { fetchToken, signedCreate, signedStatus } = require('./lib/signing');

const ROOT = path.resolve(__dirname, '..');
/** More than the creates that can be in flight at once (20 connections). */
const IN_FLIGHT_MARGIN = 50;
/** The share of the run from which RSS is compared: 100k of 1M requests. */
const FROM_SHARE = 0.1;

function slope(samples) {
  const n = samples.length;
  const meanT = samples.reduce((sum, s) => sum + s.t, 0) / n;
  const meanM = samples.reduce((sum, s) => sum + s.mb, 0) / n;
  const num = samples.reduce((sum, s) => sum + (s.t - meanT) * (s.mb - meanM), 0);
  const den = samples.reduce((sum, s) => sum + (s.t - meanT) ** 2, 0) || 1;
  return (num / den) * 60;
}

/**
 * Issue 15 compares RSS from 100k to 1M requests: from the first sample at a tenth of the run to the last (from the
 * first steady sample, the second, when the run is too short to have one before its end).
 */
function rssChange(samples, total) {
  const last = samples[samples.length - 1];
  const from = samples.slice(0, -1).find((sample) => sample.requests >= total * FROM_SHARE) ?? samples[1] ?? samples[0];
  return { fromRequests: from.requests, firstMb: from.mb, lastMb: last.mb, changePct: ((last.mb - from.mb) / from.mb) * 100 };
}

async function soak(total) {
  const port = await freePort();
  const dataDir = tempDir('bench-soak-');
  const startedAt = performance.now();
  const child = startBank(ROOT, port, dataDir);
  await waitForAnswer(`http://127.0.0.1:${port}/readyz`, startedAt, { wantStatus: 200 });
  const base = `http://127.0.0.1:${port}`;
  let token = await fetchToken(base);
  const references = [];
  let count = 0;
  const samples = [];
  const began = performance.now();
  // Each sample with the requests sent by then: the goal compares RSS from 100k requests on (rssChange).
  const sample = () => samples.push({ t: (performance.now() - began) / 1000, requests: count, mb: treeRssMb(child.pid) });
  const sampler = setInterval(sample, 10_000);
  const refresh = setInterval(async () => (token = await fetchToken(base)), 30 * 60_000);
  const result = await autocannon({
    url: base,
    connections: 20,
    amount: total,
    requests: [{
      setupRequest: (req) => {
        count += 1;
        if (count % 4 === 0 || references.length === 0) {
          const create = signedCreate(token);
          if (references.length < 10_000) references.push(create.reference);
          return { ...req, ...create };
        }
        // Poll only orders whose create is surely answered: the newest ones may still be in flight on another connection.
        const settled = Math.max(1, references.length - IN_FLIGHT_MARGIN);
        return { ...req, ...signedStatus(token, references[count % settled]) };
      },
    }],
  });
  clearInterval(sampler);
  clearInterval(refresh);
  sample();
  await stop(child);
  const steady = samples.slice(1);
  return {
    requests: result.requests.total, seconds: result.duration, non2xx: result.non2xx, samples,
    ...rssChange(samples, total), slopeMbPerMin: steady.length > 1 ? slope(steady) : 0,
  };
}

module.exports = { soak, rssChange };
if (require.main === module) soak(Number(process.argv[2] ?? 1_000_000)).then((r) => console.log(JSON.stringify(r, null, 2)), (error) => { console.error(error); process.exit(1); });
