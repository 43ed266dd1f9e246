// A Bank of the test helpers listening on a real port, with the admin token set: the CLI talks HTTP to it.
import http from 'node:http';
import { AddressInfo } from 'node:net';
import type { Bank, BankOptions } from '../../src/bank/bank';
import type { BankConfig } from '../../src/bank/config';
import { startBank } from '../helpers/bank';
import type { FakeConnector } from '../helpers/fake-connector';
import { bankWithFakeConnector } from '../helpers/outbound';

export const ADMIN = 'admin-token-of-the-cli-tests';

export interface ListeningBank {
  bank: Bank;
  url: string;
  /** SANDBOX_BANK_URL and ADMIN_TOKEN for this Bank. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** `bank` on a real port; close() stops the listener and closes the Bank. */
export async function serve(bank: Bank): Promise<ListeningBank> {
  const server = http.createServer(bank.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    bank,
    url,
    env: { SANDBOX_BANK_URL: url, ADMIN_TOKEN: ADMIN },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      bank.close();
    },
  };
}

/** A Bank of the test helpers on a real port (the CLI talks HTTP), with the admin token set. */
export async function listeningBank(overrides: Partial<BankConfig> = {}, options: BankOptions = {}): Promise<ListeningBank> {
  return serve(await startBank({ adminToken: ADMIN, ...overrides }, options));
}

/** A Bank with a fake Connector (bankWithFakeConnector) on a real port, the admin token set; stop() ends all three. */
export async function listeningBankWithFakeConnector(overrides: Partial<BankConfig> = {}): Promise<ListeningBank & { fake: FakeConnector; stop(): Promise<void> }> {
  const { bank, fake } = await bankWithFakeConnector({ adminToken: ADMIN, ...overrides });
  const served = await serve(bank);
  return {
    ...served,
    fake,
    async stop() {
      await bank.outbound.stop(1000);
      await served.close();
      await fake.stop();
    },
  };
}
