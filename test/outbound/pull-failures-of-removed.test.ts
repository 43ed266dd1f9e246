// A failing pull is warned about once, then logged at debug until it recovers (outbound/poller.ts). A client
// deleted while its pull was failing is forgotten: the same id registered again is warned about at its first
// failure, and the set of failing Connectors does not keep every id ever deleted.
import { Bank } from '../../src/bank/bank';
import { startBank } from '../helpers/bank';
import { capturingLogger, LogLine } from '../helpers/logs';
import { unreachableUrl } from '../connector/helpers';
import { registerClient, sandbox } from '../control/client-helpers';

describe('pull failures of a deleted client', () => {
  let bank: Bank;
  afterEach(() => bank.close());

  it('are forgotten: the id registered again is warned about at its first failure', async () => {
    const { logger, lines } = capturingLogger('debug');
    bank = await startBank({ sandboxMode: 'relaxed', pollCron: 'off' }, { logger });
    const url = await unreachableUrl();
    const failures = (level: string) => lines.filter((line: LogLine) => line.client_id === 'flaky' && line.level === level && String(line.message).startsWith('pull ')).length;
    await registerClient(bank, { client_id: 'flaky', connector: { url, poll: true } });
    await bank.outbound.poller.runCycle();
    await bank.outbound.poller.runCycle();
    expect([failures('warn'), failures('debug')]).toEqual([1, 1]);
    expect((await sandbox(bank).delete('/sandbox/clients/flaky')).status).toBe(200);
    await registerClient(bank, { client_id: 'flaky', connector: { url, poll: true } });
    await bank.outbound.poller.runCycle();
    expect([failures('warn'), failures('debug')]).toEqual([2, 1]);
  });
});
