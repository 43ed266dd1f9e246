// Child-process tests run dist/; build it first when src/ is newer. Then every temp dir of the run (the tests'
// own and their child processes', all made under os.tmpdir()) goes into one directory of the run's own, which
// test/global-teardown.js removes: before, each run left a few hundred data dirs behind (~5.7 GB over a day).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = async () => {
  require('../scripts/build-if-needed.js');
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-bank-jest-'));
  process.env.SANDBOX_BANK_TEST_RUN_DIR = runDir;
  // Read by os.tmpdir() on each call, here and in the workers and child processes, which inherit it.
  process.env.TMPDIR = runDir;
};
