// The files this process holds open, for tests that check a store lets its files go. Linux lists them under
// /proc (CI's machine); elsewhere such checks are skipped with `itWithProc`.
import fs from 'node:fs';

/** The targets of this process's open file descriptors (a deleted file reads "<path> (deleted)"). */
export function openFiles(): string[] {
  return fs
    .readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .filter((target) => target !== '');
}

export const itWithProc = fs.existsSync('/proc/self/fd') ? it : it.skip;
