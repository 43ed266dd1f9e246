// scripts/build-if-needed.js (npm start's and npm run pki's pre-step) in an installed build without sources, as the
// Docker image is: it must run what is built, not fail on the missing tsconfig.json.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, tempDir } from '../helpers/bank';

function installedBuild(withDist: boolean): string {
  const dir = tempDir('installed-build-');
  fs.mkdirSync(path.join(dir, 'scripts'));
  fs.copyFileSync(path.join(ROOT, 'scripts', 'build-if-needed.js'), path.join(dir, 'scripts', 'build-if-needed.js'));
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  fs.mkdirSync(path.join(dir, 'src', 'dashboard', 'assets'), { recursive: true });
  if (withDist) {
    fs.mkdirSync(path.join(dir, 'dist', 'bank'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'dist', 'bank', 'main.js'), '');
  }
  return dir;
}

const run = (dir: string) => spawnSync(process.execPath, [path.join(dir, 'scripts', 'build-if-needed.js')], { cwd: dir, encoding: 'utf8' });

describe('build-if-needed without sources (the Docker image)', () => {
  it('leaves a built dist/ as it is and succeeds', () => {
    const result = run(installedBuild(true));
    expect([result.status, result.stderr]).toEqual([0, '']);
  });

  it('required by another script (scripts/pki.js, new-client.js), lets that script go on', () => {
    const dir = installedBuild(true);
    fs.writeFileSync(path.join(dir, 'scripts', 'pki.js'), "require('./build-if-needed.js');\nprocess.stdout.write('issued');\n");
    const result = spawnSync(process.execPath, [path.join(dir, 'scripts', 'pki.js')], { cwd: dir, encoding: 'utf8' });
    expect([result.status, result.stdout, result.stderr]).toEqual([0, 'issued', '']);
  });

  it('fails with a message when there is no dist/ either', () => {
    const result = run(installedBuild(false));
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/dist\/ is missing and there are no sources to build it from/);
  });
});
