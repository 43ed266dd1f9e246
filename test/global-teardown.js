// Removes the run's temp directory (test/global-setup.js): every child process of the tests has exited by now.
const fs = require('node:fs');

module.exports = async () => {
  const runDir = process.env.SANDBOX_BANK_TEST_RUN_DIR;
  if (runDir) fs.rmSync(runDir, { recursive: true, force: true });
};
