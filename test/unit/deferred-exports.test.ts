// scripts/deferred-exports.js: the bundle defers three packages' start-up work to first use. Each patched file, loaded
// beside the installed original, must export the same things; and each patch must still fit the installed version.
import fs from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';

interface Deferral {
  file: string;
  find: string;
  replace: string;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { DEFERRED, deferralFor, applyDeferral, deferredExportsPlugin } = require('../../scripts/deferred-exports') as {
  DEFERRED: Deferral[];
  deferralFor(file: string): Deferral | undefined;
  applyDeferral(deferral: Deferral, source: string): string | null;
  deferredExportsPlugin(warn: (message: string) => void): { setup(build: { onLoad(options: unknown, load: (args: { path: string }) => unknown): void }): void };
};

const ROOT = path.resolve(__dirname, '../..');
type NodeModule = { filename: string; paths: string[]; exports: Record<string, unknown>; _compile(source: string, file: string): void; require(id: string): unknown };
const NodeModule = Module as unknown as { new (id: string): NodeModule; _nodeModulePaths(dir: string): string[] };
/** node's own loader (jest's require keeps a registry of its own, so its modules are other objects). */
const nodeRequire = (id: string) => {
  const anchor = new NodeModule(path.join(ROOT, 'index.js'));
  anchor.paths = NodeModule._nodeModulePaths(ROOT);
  return anchor.require(id);
};

function installed(file: string): string {
  return path.join(ROOT, 'node_modules', file);
}

/** The package file with its deferral applied, compiled as node would, beside the original (same requires, same cache). */
function loadPatched(file: string): Record<string, unknown> {
  const filename = installed(file);
  const patched = applyDeferral(deferralFor(filename) as Deferral, fs.readFileSync(filename, 'utf8'));
  if (patched === null) throw new Error(`${file}: the deferral does not fit`);
  const module = new NodeModule(filename);
  module.filename = filename;
  module.paths = NodeModule._nodeModulePaths(path.dirname(filename));
  module._compile(patched, filename);
  return module.exports;
}

const isDeferred = (target: object, name: string) => typeof Object.getOwnPropertyDescriptor(target, name)?.get === 'function';

describe('the deferrals fit the installed packages', () => {
  it.each(DEFERRED.map((deferral) => [deferral.file, deferral]))('%s has the text its deferral replaces, once', (_file, deferral) => {
    expect(applyDeferral(deferral, fs.readFileSync(installed(deferral.file), 'utf8'))).not.toBeNull();
  });

  it('leaves a file whose text differs as it is, and the bundler says so', () => {
    const [mime] = DEFERRED;
    expect(applyDeferral(mime, '// another version\n')).toBeNull();
    expect(applyDeferral(mime, `${mime.find}${mime.find}`)).toBeNull();
    let load: ((args: { path: string }) => unknown) | undefined;
    const warnings: string[] = [];
    deferredExportsPlugin((message) => warnings.push(message)).setup({ onLoad: (_options, onLoad) => (load = onLoad) });
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'deferred-'));
    const other = path.join(elsewhere, 'node_modules', 'mime-types', 'index.js');
    fs.mkdirSync(path.dirname(other), { recursive: true });
    fs.writeFileSync(other, 'module.exports = {}\n');
    try {
      expect(load?.({ path: other })).toBeUndefined();
      expect(warnings).toEqual([expect.stringContaining('mime-types/index.js is not the text this build knows')]);
      expect(load?.({ path: installed('express/lib/router.js') })).toBeUndefined();
      expect((load?.({ path: installed('express/lib/express.js') }) as { contents: string }).contents).toContain("deferExport(exports, 'json'");
      expect(warnings).toHaveLength(1);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe('a patched package exports what the original does', () => {
  it('mime-types builds its maps on first use, and they are the original maps', () => {
    const original = nodeRequire('mime-types') as Record<string, unknown> & { lookup(ext: string): string | false };
    const patched = loadPatched('mime-types/index.js') as typeof original;
    expect(Object.keys(patched)).toEqual(Object.keys(original));
    for (const name of ['extensions', 'types', '_extensionConflicts']) expect(isDeferred(patched, name)).toBe(true);
    // A JSON answer's Content-Type needs no map.
    expect((patched.contentType as (type: string) => string)('application/json')).toBe('application/json; charset=utf-8');
    expect(isDeferred(patched, 'types')).toBe(true);
    expect(patched.lookup('html')).toBe('text/html');
    for (const name of ['extensions', 'types', '_extensionConflicts']) {
      expect(isDeferred(patched, name)).toBe(false);
      expect(patched[name]).toEqual(original[name]);
    }
    expect((patched.extension as (type: string) => string)('application/json')).toBe('json');
    expect((patched.contentType as (type: string) => string)('json')).toBe((original.contentType as (type: string) => string)('json'));
  });

  it('mime-types: the first read of any one map builds all three, and a map may still be replaced', () => {
    const patched = loadPatched('mime-types/index.js') as Record<string, unknown> & { lookup(ext: string): string | false };
    expect((patched._extensionConflicts as unknown[]).length).toBeGreaterThan(0);
    expect(isDeferred(patched, 'types')).toBe(false);
    expect(isDeferred(patched, 'extensions')).toBe(false);
    // Replaced before the maps are built, a map stays replaced once they are, as if replaced after loading.
    const again = loadPatched('mime-types/index.js') as typeof patched & { extension(type: string): string | false };
    const custom = { custom: 'application/x-custom' };
    again.types = custom;
    expect(again.lookup('custom')).toBe('application/x-custom');
    expect(again.extension('text/html')).toBe('html');
    expect(again.types).toBe(custom);
    expect(again.lookup('html')).toBe(false);
    expect(isDeferred(again, '_extensionConflicts')).toBe(false);
  });

  it('express exports the same parsers and serve-static, loaded on first read', () => {
    const original = nodeRequire('express') as Record<string, unknown>;
    const patched = loadPatched('express/lib/express.js');
    expect(Object.keys(patched)).toEqual(Object.keys(original));
    for (const name of ['json', 'raw', 'static', 'text', 'urlencoded']) {
      expect(isDeferred(patched, name)).toBe(true);
      expect(patched[name]).toBe(original[name]);
      expect(isDeferred(patched, name)).toBe(false);
    }
    expect(patched.static).toBe(nodeRequire('serve-static'));
  });

  it('body-parser exports the same four parsers, loaded on first read', () => {
    const original = nodeRequire('body-parser') as Record<string, unknown>;
    const patched = loadPatched('body-parser/index.js');
    expect(Object.keys(patched)).toEqual(Object.keys(original));
    for (const name of ['json', 'raw', 'text', 'urlencoded']) {
      expect(isDeferred(patched, name)).toBe(true);
      expect(patched[name]).toBe(original[name]);
    }
    const replaced = loadPatched('body-parser/index.js');
    const mine = () => undefined;
    replaced.json = mine;
    expect(replaced.json).toBe(mine);
  });
});
