// Problem details are ASCII. application/problem+json carries no charset (RFC 8259 allows none), and Python's
// requests then guesses the text's encoding from its bytes: a "§" read back as "ยง" (the Python interop audit). This
// reads the line of every throw of a problem or of an error that becomes one, and finds a non-ASCII character there.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/bank';

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

const THROWN = /(ProblemError|Problem|oauthError|authInvalid|tokenRefused|proofRefused|JwsFormatError|DpopInvalidError|TokenInvalidError)\(/;

describe('problem details', () => {
  it('are written in ASCII in every place that throws one', () => {
    const offenders = sourceFiles(path.join(ROOT, 'src')).flatMap((file) =>
      fs.readFileSync(file, 'utf8').split('\n').flatMap((line, index) =>
        THROWN.test(line) && /[^\x00-\x7F]/.test(line.replace(/\/\/.*$|\/\*.*?\*\//g, '')) ? [`${path.relative(ROOT, file)}:${index + 1}: ${line.trim()}`] : []),
    );
    expect(offenders).toEqual([]);
  });
});
