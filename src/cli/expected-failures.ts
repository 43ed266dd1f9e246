// The expected-failures file of `conformance` (conformance.md section 1): one case id a line, optionally followed
// by `# reason`; blank lines and lines starting with # are ignored; an id that names no case is a usage error,
// so the file cannot name something that does not exist.
import { caseInfo } from '../bank/conformance/model';
import { readFileOrFail } from './credentials';
import { usageError } from './io';

/** Case id -> the reason written after it (null when none). */
export type ExpectedFailures = ReadonlyMap<string, string | null>;

export function parseExpectedFailures(text: string, file: string): ExpectedFailures {
  const entries = new Map<string, string | null>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const hash = line.indexOf('#');
    const id = (hash < 0 ? line : line.slice(0, hash)).trim();
    const reason = hash < 0 ? null : line.slice(hash + 1).trim() || null;
    const where = `${file}:${index + 1}`;
    if (/\s/.test(id)) throw usageError(`${where}: one case id a line, then "# reason"; got "${line}"`);
    if (!caseInfo(id)) throw usageError(`${where}: "${id}" names no conformance case (see docs/conformance.md for the ids)`);
    entries.set(id, reason);
  });
  return entries;
}

export function readExpectedFailures(file: string): ExpectedFailures {
  return parseExpectedFailures(readFileOrFail(file, 'expected-failures file').toString('utf8'), file);
}
