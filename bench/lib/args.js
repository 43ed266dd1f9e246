// The bench scripts' command-line options: `--name=value`, or the fallback when absent.
'use strict';
const path = require('node:path');

/** The text after `--name=` on the command line, else `fallback` as text. */
function option(name, fallback) {
  const given = process.argv.find((arg) => arg.startsWith(`--${name}=`));
  return given === undefined ? String(fallback) : given.slice(name.length + 3);
}

/**
 * What a profiling tool looks at (profile.js, statements.js, allocations.js): the flow (argv[2]: create, or
 * status), `--server` (bank, or a limit server's name), `--requests`, `--connections`, and the Bank's build
 * (BANK_ROOT, another build's directory, for a before/after comparison; this one by default).
 */
function loadTarget(defaultRequests) {
  return {
    flow: process.argv[2] === 'status' ? 'status' : 'create',
    server: option('server', 'bank'),
    requests: Number(option('requests', defaultRequests)),
    connections: Number(option('connections', 20)),
    bankRoot: process.env.BANK_ROOT ? path.resolve(process.env.BANK_ROOT) : path.resolve(__dirname, '..', '..'),
  };
}

module.exports = { option, loadTarget };
