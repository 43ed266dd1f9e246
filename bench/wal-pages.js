#!/usr/bin/env node
// What a request's commits write: the pages SQLite appends to the WAL, by the table or index they belong to. The
// server runs under the bench's signed load (pinned like `npm run bench`); after the warm-up this process checkpoints
// the WAL with RESTART, so the next commit starts it afresh; after the measured requests the server is killed
// (SIGKILL: no checkpoint on the way out), and the WAL holds the frames of exactly those requests' commits. Each
// frame is one page, written with two write calls (its header, then the page: sqlite3.c, walWriteOneFrame).
//   node bench/wal-pages.js [create|status] [--server=bank|required|lean|limit] [--requests=2000] [--connections=20]
// Keep the frames under the Bank's checkpoint bound (WAL_AUTOCHECKPOINT_PAGES, 10,000): past it the WAL starts over
// and only the last lap is read, which the output says.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Database = require('better-sqlite3');
const { median, pinSelf, startServerUnderTest, tempDir, sleep } = require('./lib/processes');
const { underSignedLoad } = require('./lib/signed-load');
const { loadTarget } = require('./lib/args');

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;

/** The WAL header's checkpoint sequence number: one more each time a writer starts the WAL afresh. */
function lapOf(wal) {
  return wal.length < WAL_HEADER_BYTES ? 0 : wal.readUInt32BE(12);
}

/**
 * The committed transactions of a WAL's current lap (the frames whose salts are the header's), each as the page
 * numbers it wrote in order; frames after the last commit frame belong to no finished transaction and are left out.
 */
function walCommits(wal) {
  if (wal.length < WAL_HEADER_BYTES) return { pageSize: 0, commits: [] };
  const pageSize = wal.readUInt32BE(8);
  const salts = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  const commits = [];
  let pages = [];
  for (let offset = WAL_HEADER_BYTES; offset + FRAME_HEADER_BYTES + pageSize <= wal.length; offset += FRAME_HEADER_BYTES + pageSize) {
    if (wal.readUInt32BE(offset + 8) !== salts[0] || wal.readUInt32BE(offset + 12) !== salts[1]) break;
    pages.push(wal.readUInt32BE(offset));
    // A commit frame carries the database's size in pages after the commit; any other frame carries 0.
    if (wal.readUInt32BE(offset + 4) !== 0) {
      commits.push(pages);
      pages = [];
    }
  }
  return { pageSize, commits };
}

/** Page number -> the table or index it belongs to ('name', or 'name (interior)'), read with SQLite's dbstat. */
function pageOwners(db) {
  const owners = new Map([[1, 'page 1 (the database header)']]);
  for (const { name, pageno: page, pagetype: type } of db.prepare('SELECT name, pageno, pagetype FROM dbstat').all()) {
    if (page === 1) continue;
    owners.set(page, type === 'internal' ? `${name} (interior)` : type === 'overflow' ? `${name} (overflow)` : name);
  }
  return owners;
}

/** Frames by owner, most first: [owner, frames][]; a page no table holds now is 'free or unknown'. */
function framesByOwner(commits, owners) {
  const counts = new Map();
  for (const pages of commits) {
    for (const page of pages) {
      const owner = owners.get(page) ?? 'free or unknown';
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]);
}

/** The database file a WAL belongs to: its name without `-wal`. */
function databaseOf(walFile) {
  return walFile.slice(0, -'-wal'.length);
}

function walFileIn(dir) {
  const name = fs.readdirSync(dir).find((file) => file.endsWith('.sqlite-wal'));
  if (!name) throw new Error(`no SQLite WAL in ${dir}`);
  return path.join(dir, name);
}

/**
 * A copy of the database with the WAL bytes that were counted, opened: SQLite takes the WAL in as it opens, and
 * dbstat names every page.
 */
function ownersAfter(walFile, wal, copyDir) {
  const copy = path.join(copyDir, 'copy.sqlite');
  fs.copyFileSync(databaseOf(walFile), copy);
  fs.writeFileSync(`${copy}-wal`, wal);
  const db = new Database(copy, { readonly: true });
  try {
    return pageOwners(db);
  } finally {
    db.close();
  }
}

/** The next writer starts the WAL afresh: every frame in it from now on is the measured requests'. */
function restartWal(dataDir) {
  const db = new Database(databaseOf(walFileIn(dataDir)));
  try {
    db.pragma('busy_timeout = 5000');
    const [{ busy }] = db.pragma('wal_checkpoint(RESTART)');
    if (busy) throw new Error('the WAL could not be restarted: the server kept a reader or a writer busy');
  } finally {
    // Closed while the server still holds its own connection: the last connection to close would checkpoint the WAL.
    db.close();
  }
}

async function main() {
  const { flow, server, requests, connections, bankRoot } = loadTarget(2000);
  pinSelf();
  const workDir = tempDir('bench-wal-pages-');
  const dataDir = path.join(workDir, 'data');
  fs.mkdirSync(dataDir);
  let walFile = null;
  let wal = null;
  let lapBefore = 0;
  const { result } = await underSignedLoad({
    server, flow, requests, connections, warmUp: 3000,
    start: (port) => startServerUnderTest(server, bankRoot, port, dataDir),
    afterWarmUp: () => {
      restartWal(dataDir);
      lapBefore = lapOf(fs.readFileSync(walFileIn(dataDir)));
    },
    afterLoad: async (child) => {
      await sleep(100); // the journal's last batch (written every 5 ms)
      process.kill(-child.pid, 'SIGKILL');
      await child.exitPromise;
      walFile = walFileIn(dataDir);
      wal = fs.readFileSync(walFile);
    },
  });
  const { pageSize, commits } = walCommits(wal);
  const frames = commits.reduce((sum, pages) => sum + pages.length, 0);
  const owners = ownersAfter(walFile, wal, workDir);
  const perRequest = (count) => (count / requests).toFixed(2).padStart(6);
  console.log(`${flow} on ${server}, c=${connections}: ${requests} requests measured (${result.non2xx} non-2xx), ${commits.length} commits, ${frames} frames of ${pageSize} bytes: ${(frames / requests).toFixed(2)} a request, ${((2 * frames) / requests).toFixed(2)} write calls`);
  const sizes = commits.map((pages) => pages.length);
  if (sizes.length > 0) console.log(`frames a commit: median ${median(sizes)}, largest ${Math.max(...sizes)}`);
  const laps = lapOf(wal) - lapBefore;
  if (laps !== 1) console.log(`the requests wrote ${laps} laps of the WAL, and only the last is counted: use fewer --requests`);
  console.log('\na request  share  pages of');
  for (const [owner, count] of framesByOwner(commits, owners)) console.log(`${perRequest(count)}  ${((count / frames) * 100).toFixed(1).padStart(5)} %  ${owner}`);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

module.exports = { walCommits, lapOf, pageOwners, framesByOwner };
