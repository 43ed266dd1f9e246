// Fast start: run a program from the single file the build bundled it into (scripts/bundle.js), compiled with the
// V8 code cache the build wrote for it. Nearly all of a start is node compiling express, winston, ajv and our
// modules one file at a time; from the bundle and its cache the Bank answers /readyz about a quarter sooner
// (bench/README.md). Whenever the bundle is missing, older than any of our modules it was made of, or turned off,
// the modules load as usual, so an edited and recompiled dist/ never runs stale code. The cache is V8's own: a
// node or V8 that does not match rejects it, and the bundle then compiles as any script would.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

export interface Launch {
  /** What the code runs from: the bundle, or dist/'s modules one by one. */
  from: 'bundle' | 'modules';
  /** The code cache: V8 took it, refused it (another node or V8), or there was none (or it was older than the bundle). */
  codeCache: 'accepted' | 'rejected' | 'none';
}

/** Set by the build's warm-up run (scripts/bundle.js): where to write the code cache when the process exits. */
export const WRITE_CODE_CACHE_ENV = 'SANDBOX_BANK_WRITE_CODE_CACHE';
// The bundled program has its own copy of this module, so the launch is handed over on `process`.
const LAUNCH = Symbol.for('sandbox-bank.launch');
const MODULES: Launch = { from: 'modules', codeCache: 'none' };

export interface BundleFiles {
  bundle: string;
  cache: string;
  /** Our own modules the bundle was made of, one path per line, relative to the bundle's directory. */
  inputs: string;
}

/** What the build makes of `program` (dist/bank/server.js: server.bundle.js, .bundle.cache, .bundle.inputs). */
export function bundleFiles(program: string): BundleFiles {
  const base = program.replace(/\.js$/, '');
  return { bundle: `${base}.bundle.js`, cache: `${base}.bundle.cache`, inputs: `${base}.bundle.inputs` };
}

/** How this process started; read by the program, bundled or not. */
export function launchOf(): Launch {
  return ((process as unknown as Record<symbol, Launch | undefined>)[LAUNCH]) ?? MODULES;
}

/** Runs `program` from its bundle when `enabled` and the bundle is current; otherwise calls `loadModules`. */
export function launch(program: string, enabled: boolean, loadModules: () => void): Launch {
  const files = bundleFiles(program);
  const bundledAt = enabled ? currentBundleTime(files) : null;
  if (bundledAt !== null) {
    const source = bundleText(files.bundle);
    // A bundle without the wrapper was not made by this build's bundler: the modules are never wrong.
    if (source.startsWith(BUNDLE_WRAPPER.head)) return runBundle(files.bundle, source, readCache(files.cache, bundledAt));
  }
  loadModules();
  return MODULES;
}

function mtimeOf(file: string): number | null {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

/** When the bundle was written, or null when there is none or any module it was made of has changed since (~1 ms of stats). */
function currentBundleTime(files: BundleFiles): number | null {
  const bundledAt = mtimeOf(files.bundle);
  if (bundledAt === null) return null;
  let inputs: string[];
  try {
    inputs = fs.readFileSync(files.inputs, 'utf8').split('\n').filter(Boolean);
  } catch {
    return null;
  }
  const dir = path.dirname(files.bundle);
  for (const input of inputs) {
    const changed = mtimeOf(path.join(dir, input));
    if (changed === null || changed > bundledAt) return null;
  }
  return bundledAt;
}

/**
 * The bundle's text. The build keeps a bundle only when it is ASCII (esbuild escapes the rest; scripts/bundle.js), and
 * ASCII read as latin1 is the same string, made without UTF-8 decoding: ~13 ms instead of ~22 for the 1.4 MB
 * bundle, on every start. Not checking it again here saves ~1.3 ms more (issue 15).
 */
export function bundleText(file: string): string {
  return fs.readFileSync(file, 'latin1');
}

/** The code cache, unless it is missing or older than the bundle (then it was made from another text). */
function readCache(cache: string, bundledAt: number): Buffer | undefined {
  const written = mtimeOf(cache);
  if (written === null || written < bundledAt) return undefined;
  return fs.readFileSync(cache);
}

type ModuleFunction = (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;

/**
 * node's own CommonJS wrapper, so that the bundle sees what a module sees. The build writes it around the bundle
 * (esbuild's banner and footer), so that V8 compiles the file's text as read: wrapping it here copied the 1.4 MB
 * into a new string first, ~6 ms of every start (issue 15).
 */
export const BUNDLE_WRAPPER = { head: '(function (exports, require, module, __filename, __dirname) {', tail: '\n})' } as const;

/** The script compiled for a bundle, whose text is a function in BUNDLE_WRAPPER. */
export function bundleScript(file: string, source: string, cachedData?: Buffer): vm.Script {
  return new vm.Script(source, { filename: file, cachedData });
}

function runBundle(file: string, source: string, cachedData: Buffer | undefined): Launch {
  const script = bundleScript(file, source, cachedData);
  const started: Launch = { from: 'bundle', codeCache: cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'accepted' };
  (process as unknown as Record<symbol, Launch>)[LAUNCH] = started;
  const writeTo = process.env[WRITE_CODE_CACHE_ENV];
  // On exit, after a whole start and stop: the cache then holds every function they compiled, not only the top level.
  if (writeTo) process.once('exit', () => fs.writeFileSync(writeTo, script.createCachedData()));
  const module = { exports: {} as unknown };
  (script.runInThisContext() as ModuleFunction)(module.exports, createRequire(file), module, file, path.dirname(file));
  return started;
}
