// The Connector guide's table of problem codes names every code the Bank can answer (src/wire/problems.ts), so a
// code added to the Bank cannot be missing from what Connector teams read.
import fs from 'node:fs';
import path from 'node:path';
import { PROBLEM_TYPES } from '../../src/wire/problems';

const guide = fs.readFileSync(path.join(__dirname, '../../docs/connector-guide.md'), 'utf8');

describe('docs/connector-guide.md lists every problem code', () => {
  it.each(Object.keys(PROBLEM_TYPES))('%s', (code) => {
    expect(guide).toContain(`\`${code}\``);
  });
});
