// The project's root directory (where package.json, schemas/ and src/dashboard/assets are), found by walking up from
// this file: the same answer from src/ under ts-jest, from dist/ module by module, and from the single-file bundle
// in dist/bank/ (wire/fast-start.ts), where every module shares the bundle's __dirname.
import fs from 'node:fs';
import path from 'node:path';

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return start;
  }
}

export const PROJECT_ROOT = findRoot(__dirname);

/** The version in package.json, or null when it cannot be read. */
export function packageVersion(): string | null {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : null;
  } catch {
    return null;
  }
}
