// package.json's allowScripts names every dependency that has an install script, so that npm 11 runs them without a
// notice on `npm ci` (the README's first command) and still under --strict-allow-scripts, where an unreviewed one
// fails the install (docs/operations.md). The lock file marks such a package (hasInstallScript) on every platform,
// optional ones included; a new one must be reviewed and named here.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as T;
}

describe('install scripts', () => {
  it('are approved in package.json for exactly the locked packages that have one: better-sqlite3 and esbuild', () => {
    const { packages } = readJson<{ packages: Record<string, { hasInstallScript?: boolean }> }>('package-lock.json');
    const withScripts = Object.entries(packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([location]) => location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect([...new Set(withScripts)].sort()).toEqual(['better-sqlite3', 'esbuild']);
    expect(readJson<{ allowScripts?: Record<string, boolean> }>('package.json').allowScripts).toEqual({ 'better-sqlite3': true, esbuild: true });
  });
});
