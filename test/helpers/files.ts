// A directory's files by their bytes, to tell exactly which files a step wrote (the dev PKI's tests).
import fs from 'node:fs';
import path from 'node:path';

/** Every file under `dir`, by path, with its bytes (base64). */
export function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(dir, name);
    if (fs.statSync(file).isFile()) files.set(file, fs.readFileSync(file, 'base64'));
  }
  return files;
}

/** The paths whose bytes differ between two snapshots (or that one of them lacks), sorted. */
export function changed(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter((file) => before.get(file) !== after.get(file)).sort();
}
