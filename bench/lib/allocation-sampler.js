// A --require preload for bench/allocations.js: V8's sampling heap profiler, keeping the samples of objects that
// have already died too (V8 drops them by default, and a request's objects nearly all die young). Sampling starts
// on SIGUSR2, after the driver's warm-up; the profile is written to ALLOCATION_PROFILE_FILE when the process exits.
'use strict';
const fs = require('node:fs');
const inspector = require('node:inspector');

const OUT = process.env.ALLOCATION_PROFILE_FILE;
// One sample about every KiB allocated: a create's ~38 KB gives ~37 samples, enough over 20,000 requests.
const INTERVAL_B = 1024;
const session = new inspector.Session();
session.connect();
let sampling = false;

process.on('SIGUSR2', () => {
  if (sampling) return;
  sampling = true;
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', {
    samplingInterval: INTERVAL_B,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
});

process.on('exit', () => {
  if (!sampling || !OUT) return;
  // A session on the main thread answers synchronously, so the profile is written before the process ends.
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error) console.error(`allocation sampler: ${error.message}`);
    else fs.writeFileSync(OUT, JSON.stringify(result.profile));
  });
});
