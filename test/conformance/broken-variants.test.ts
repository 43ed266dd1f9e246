// Conformance section 5 and issue 4/7 acceptance: `sandbox-bank conformance` (the real CLI, as a child process)
// exits 0 against the reference Connector, and against each deliberately broken variant exits 1 with exactly the
// cases its flaw breaks FAILED. Each variant runs only the groups its flaw concerns, to keep the suite fast.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CaseGroup } from '../../src/bank/conformance/model';
import { FLAWS, Flaw, FLAW_NAMES } from '../../src/connector/flaws';
import { ROOT, tempDir } from '../helpers/bank';
import { RunPair, startRunPair } from './helpers';

jest.setTimeout(120_000);

const WINDOW_S = 6;

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'bin/sandbox-bank.js'), ...args], { env: { ...process.env, SANDBOX_BANK_SKIP_BUILD: '1', NO_COLOR: '1' }, timeout: 90_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The case ids the CLI printed with a verdict, e.g. "FAILED  unit.alg_none_rejected: …". */
function casesWith(verdict: string, stdout: string): string[] {
  return stdout.split('\n').filter((line) => line.startsWith(verdict)).map((line) => line.slice(verdict.length).trim().split(/[\s:]/)[0]).sort();
}

async function runCli(pair: RunPair, extra: string[], dir: string): Promise<CliRun & { junit: string }> {
  const junit = path.join(dir, 'junit.xml');
  const run = await cli(['conformance', '--bank', pair.bankUrl, '--client', 'demo-connector', '--push-via', `${pair.connector.url}/orders`, '--window-s', String(WINDOW_S), '--junit', junit, '--html', path.join(dir, 'report.html'), ...extra]);
  return { ...run, junit: fs.existsSync(junit) ? fs.readFileSync(junit, 'utf8') : '' };
}

describe('the reference Connector', () => {
  it('passes: the CLI exits 0, writes the JUnit and HTML reports, and the JUnit file validates against junit-10.xsd', async () => {
    const pair = await startRunPair();
    try {
      const dir = tempDir('conformance-cli-');
      const run = await runCli(pair, [], dir);
      expect({ code: run.code, failed: casesWith('FAILED', run.stdout), stderr: run.stderr }).toEqual({ code: 0, failed: [], stderr: '' });
      expect(casesWith('PASSED', run.stdout)).toHaveLength(31);
      const { validateXML } = require('xmllint-wasm') as typeof import('xmllint-wasm');
      const result = await validateXML({ xml: [{ fileName: 'junit.xml', contents: run.junit }], schema: [{ fileName: 'junit-10.xsd', contents: fs.readFileSync(path.join(ROOT, 'test/fixtures/junit-10.xsd'), 'utf8') }] });
      expect(result.errors).toEqual([]);
      const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8');
      for (const line of casesWith('PASSED', run.stdout)) expect(html).toContain(line);
    } finally {
      await pair.close();
    }
  });
});

describe('each broken variant of the reference Connector fails exactly the cases its flaw breaks', () => {
  it.each(FLAW_NAMES.map((flaw) => [flaw]))('%s', async (flaw: Flaw) => {
    const broken = [...FLAWS[flaw].cases].sort();
    const groups = [...new Set(broken.map((id) => id.split('.')[0] as CaseGroup))];
    const pair = await startRunPair({ CONNECTOR_FLAWS: flaw });
    try {
      const run = await runCli(pair, ['--cases', casesOfGroups(groups).join(',')], tempDir('conformance-variant-'));
      expect({ code: run.code, failed: casesWith('FAILED', run.stdout) }).toEqual({ code: 1, failed: broken });
    } finally {
      await pair.close();
    }
  });
});

function casesOfGroups(groups: CaseGroup[]): string[] {
  const { CASES } = require('../../src/bank/conformance/model') as typeof import('../../src/bank/conformance/model');
  return CASES.filter((one) => groups.includes(one.group)).map((one) => one.id);
}
