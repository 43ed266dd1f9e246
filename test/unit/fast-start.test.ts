// wire/fast-start.ts: the Bank runs from the build's bundle only while it is current, with V8's code cache when that
// matches, and otherwise from its modules; whichever way, the program sees the require and __dirname of its place.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUNDLE_WRAPPER, bundleFiles, bundleScript, bundleText, launch, launchOf } from '../../src/wire/fast-start';

const LAUNCH = Symbol.for('sandbox-bank.launch');
type Ran = { from: string; dirname?: string; helper?: unknown } | undefined;
const processState = process as unknown as Record<symbol, unknown>;

let dir: string;
let program: string;

/** A program that writes down how it ran (bundle or modules) and what its require and __dirname gave. */
function writeProgram(): void {
  program = path.join(dir, 'server.js');
  fs.writeFileSync(path.join(dir, 'helper.js'), 'module.exports = 42;\n');
  const record = (what: string) => `require('fs').writeFileSync(require('path').join(__dirname, 'ran.json'), JSON.stringify(${what}));\n`;
  fs.writeFileSync(program, record("{ from: 'modules' }"));
  const files = bundleFiles(program);
  fs.writeFileSync(files.bundle, `${BUNDLE_WRAPPER.head}${record("{ from: 'bundle', dirname: __dirname, helper: require('./helper') }")}${BUNDLE_WRAPPER.tail}`);
  fs.writeFileSync(files.inputs, 'server.js\nhelper.js\n');
  const past = new Date(Date.now() - 60_000);
  for (const file of [program, path.join(dir, 'helper.js')]) fs.utimesSync(file, past, past);
}

function run(enabled = true): { launch: ReturnType<typeof launchOf>; ran: Ran } {
  const record = path.join(dir, 'ran.json');
  fs.rmSync(record, { force: true });
  const started = launch(program, enabled, () => jest.isolateModules(() => require(program)));
  return { launch: started, ran: fs.existsSync(record) ? (JSON.parse(fs.readFileSync(record, 'utf8')) as Ran) : undefined };
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fast-start-'));
  writeProgram();
  delete processState[LAUNCH];
});

afterEach(() => {
  delete processState[LAUNCH];
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('launch', () => {
  it('runs a current bundle with the require and __dirname of its directory', () => {
    const { launch: started, ran: result } = run();
    expect(started).toEqual({ from: 'bundle', codeCache: 'none' });
    expect(result).toEqual({ from: 'bundle', dirname: dir, helper: 42 });
    expect(launchOf()).toEqual(started);
  });

  it('uses a code cache made from the same bundle, and says so', () => {
    const files = bundleFiles(program);
    const script = bundleScript(files.bundle, fs.readFileSync(files.bundle, 'utf8'));
    fs.writeFileSync(files.cache, script.createCachedData());
    const { launch: started, ran: result } = run();
    expect(started).toEqual({ from: 'bundle', codeCache: 'accepted' });
    expect(result?.from).toBe('bundle');
  });

  it('loads the modules when the bundle is not the wrapped function this build makes', () => {
    const files = bundleFiles(program);
    fs.writeFileSync(files.bundle, "require('fs').writeFileSync(require('path').join(__dirname, 'ran.json'), '{\"from\":\"unwrapped\"}');\n");
    const { launch: started, ran: result } = run();
    expect(started).toEqual({ from: 'modules', codeCache: 'none' });
    expect(result?.from).toBe('modules');
  });

  it('still runs the bundle when V8 refuses the cache', () => {
    fs.writeFileSync(bundleFiles(program).cache, Buffer.from('not a V8 code cache'));
    const { launch: started, ran: result } = run();
    expect(started).toEqual({ from: 'bundle', codeCache: 'rejected' });
    expect(result?.from).toBe('bundle');
  });

  it('ignores a cache older than the bundle (made from another text)', () => {
    const files = bundleFiles(program);
    fs.writeFileSync(files.cache, Buffer.from('stale'));
    const past = new Date(Date.now() - 120_000);
    fs.utimesSync(files.cache, past, past);
    expect(run().launch).toEqual({ from: 'bundle', codeCache: 'none' });
  });

  it('loads the modules when one the bundle was made of changed after it', () => {
    fs.utimesSync(path.join(dir, 'helper.js'), new Date(), new Date(Date.now() + 5_000));
    const { launch: started, ran: result } = run();
    expect(started).toEqual({ from: 'modules', codeCache: 'none' });
    expect(result).toEqual({ from: 'modules' });
    expect(launchOf()).toEqual({ from: 'modules', codeCache: 'none' });
  });

  it('loads the modules when one the bundle was made of is gone', () => {
    fs.rmSync(path.join(dir, 'helper.js'));
    expect(run().ran).toEqual({ from: 'modules' });
  });

  it('loads the modules without a bundle, without its list of inputs, or when turned off', () => {
    expect(run(false).ran).toEqual({ from: 'modules' });
    fs.rmSync(bundleFiles(program).inputs);
    expect(run().ran).toEqual({ from: 'modules' });
    fs.rmSync(bundleFiles(program).bundle);
    expect(run().ran).toEqual({ from: 'modules' });
  });
});

describe('bundleText', () => {
  it('reads an ASCII bundle (all the build keeps) as the same string UTF-8 would give', () => {
    const file = path.join(dir, 'ascii.js');
    fs.writeFileSync(file, 'module.exports = "caf\\u00e9 \\u2713";\n');
    expect(bundleText(file)).toBe(fs.readFileSync(file, 'utf8'));
  });
});
