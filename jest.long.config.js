// `npm run test:long`: only the long robustness runs (test/robustness/long/), which `npm test` skips.
/** @type {import('jest').Config} */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  roots: ['<rootDir>/test/robustness/long'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 3_600_000,
};
