// A noisy neighbour on the server core, for `node bench/ab.js … --neighbour`: it walks a 64 MB buffer with a stride
// that lands on a new cache line (and mostly a new page) at every step, forever, so that whatever runs beside it
// finds its caches emptied at each switch. Why: this machine's slow phases hit the Bank's create harder than the
// limit server's (bench/README.md, session 36); this reproduces such a phase on demand, to see which part of a
// server is sensitive to it.
'use strict';
const WORDS = (64 * 1024 * 1024) / 4;
const STRIDE = 4099 * 16 + 1; // odd, so the walk visits every word of the power-of-two buffer before repeating
const memory = new Uint32Array(WORDS);
// Started in a process group of its own: it leaves by itself once the bench that started it is gone (killed,
// interrupted), rather than hold the server core for good.
const parent = process.ppid;
let index = 0;
for (;;) {
  for (let step = 0; step < 1 << 24; step += 1) {
    index = (index + STRIDE) & (WORDS - 1);
    memory[index] += 1;
  }
  if (process.ppid !== parent) process.exit(0);
}
