// One process a DATA_DIR (wire/data-dir-lock.ts): a second Bank or reference Connector on a directory in use is
// refused before it reads or writes anything there, and the directory is free again once the holder closes, fails
// to start, or dies (the SIGKILL case: test/e2e/data-dir-lock.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { BANK_OWNER, createBank } from '../../src/bank/bank';
import { DataDirInUse, holderFilePath, lockDataDir, lockFilePath } from '../../src/wire/data-dir-lock';
import { createLogger } from '../../src/wire/logger';
import { startConnector, unreachableUrl } from '../connector/helpers';
import { startBank, tempDir, testConfig } from '../helpers/bank';
import { itWithProc, openFiles } from '../helpers/open-files';
import { waitFor } from '../helpers/outbound';

const quiet = () => createLogger('error', true);

describe('DATA_DIR lock', () => {
  it('refuses a second Bank on a DATA_DIR in use, naming the first, and leaves the first working', async () => {
    const dataDir = tempDir();
    const first = await startBank({ dataDir });
    try {
      await request(first.app).get('/readyz').expect(200);
      const journalRows = () => first.db.prepare('SELECT COUNT(*) FROM journal').pluck().get();
      const before = journalRows();
      await expect(createBank(testConfig({ dataDir }), { logger: quiet() })).rejects.toThrow(DataDirInUse);
      await expect(createBank(testConfig({ dataDir }), { logger: quiet() })).rejects.toThrow(
        new RegExp(`DATA_DIR .* is in use by a Bank \\(pid ${process.pid} on .*, started .*\\)\\. .*give this one another DATA_DIR`),
      );
      expect(journalRows()).toBe(before);
      await request(first.app).get('/readyz').expect(200);
    } finally {
      first.close();
    }
  });

  it('gives the directory back when the Bank closes, and the holder file with it', async () => {
    const dataDir = tempDir();
    const first = await startBank({ dataDir });
    expect(JSON.parse(fs.readFileSync(holderFilePath(dataDir), 'utf8'))).toMatchObject({ owner: 'Bank', pid: process.pid });
    first.close();
    expect(fs.existsSync(holderFilePath(dataDir))).toBe(false);
    const second = await createBank(testConfig({ dataDir }), { logger: quiet() });
    second.close();
  });

  it('gives the directory back when a start fails after taking it', async () => {
    const dataDir = tempDir();
    const brokenRules = path.join(tempDir(), 'rules.json');
    fs.writeFileSync(brokenRules, '{ not json');
    await expect(createBank(testConfig({ dataDir, rulesFile: brokenRules }), { logger: quiet() })).rejects.toThrow(/rules/);
    const bank = await createBank(testConfig({ dataDir }), { logger: quiet() });
    bank.close();
  });

  itWithProc('closes the store a start opened before it failed, not only the lock', async () => {
    const dataDir = tempDir();
    const first = await createBank(testConfig({ dataDir }), { logger: quiet() });
    first.db.prepare("UPDATE bank_keys SET private_jwk = '{not json'").run();
    first.close();
    await expect(createBank(testConfig({ dataDir }), { logger: quiet() })).rejects.toThrow();
    // The WAL's background sync (wire/sqlite.ts WalPresync) lets its descriptor go once a sync under way ends.
    await waitFor(() => openFiles().filter((file) => file.startsWith(dataDir)).length === 0, 5_000, 'the store files to be closed');
  });

  itWithProc('a reference Connector refused its port closes its store too', async () => {
    const dataDir = tempDir('reference-connector-test-');
    const bankUrl = await unreachableUrl();
    const first = await startConnector(bankUrl, { CONNECTOR_DATA_DIR: tempDir('reference-connector-test-') });
    const port = new URL(first.url).port;
    await expect(startConnector(bankUrl, { CONNECTOR_DATA_DIR: dataDir, CONNECTOR_PORT: port })).rejects.toThrow(/already in use/);
    expect(openFiles().filter((file) => file.startsWith(dataDir))).toEqual([]);
    await first.close();
  });

  it('says who holds it even when the holder file is gone, and never locks :memory:', async () => {
    const dataDir = tempDir();
    const held = lockDataDir(dataDir, BANK_OWNER, () => {});
    fs.rmSync(holderFilePath(dataDir));
    expect(() => lockDataDir(dataDir, BANK_OWNER, () => {})).toThrow(/is in use by another process/);
    held.release();
    held.release();
    lockDataDir(dataDir, BANK_OWNER, () => {}).release();
    const a = await createBank(testConfig({ dataDir: ':memory:' }), { logger: quiet() });
    const b = await createBank(testConfig({ dataDir: ':memory:' }), { logger: quiet() });
    a.close();
    b.close();
  });

  it('starts with a warning where the lock cannot be taken at all, rather than not starting', () => {
    const dataDir = tempDir();
    fs.mkdirSync(lockFilePath(dataDir));
    const warnings: { message: string; meta: Record<string, unknown> }[] = [];
    const lock = lockDataDir(dataDir, BANK_OWNER, (message, meta) => warnings.push({ message, meta }));
    expect(warnings).toEqual([
      { message: 'DATA_DIR could not be locked: nothing stops a second process from using it', meta: expect.objectContaining({ data_dir: dataDir }) },
    ]);
    lock.release();
  });

  it('refuses a second reference Connector on its data dir, and frees it on close', async () => {
    const dataDir = tempDir('reference-connector-test-');
    const bankUrl = await unreachableUrl();
    const first = await startConnector(bankUrl, { CONNECTOR_DATA_DIR: dataDir });
    await expect(startConnector(bankUrl, { CONNECTOR_DATA_DIR: dataDir })).rejects.toThrow(
      new RegExp(`^CONNECTOR_DATA_DIR .* is in use by a reference Connector \\(pid ${process.pid} .*this reference Connector does not start: .*another CONNECTOR_DATA_DIR$`),
    );
    await first.close();
    const second = await startConnector(bankUrl, { CONNECTOR_DATA_DIR: dataDir });
    await second.close();
  });
});
