// sandbox-bank wait: answers as soon as an order reaches a status (GET /sandbox/orders/{c}/{r}/wait), so a CI
// job waits for a callback without sleeping.
import { BANK_OPTIONS, JSON_OPTION } from '../args';
import { BankApi, expectSuccess } from '../bank-api';
import { command } from '../command';
import { EXIT, jsonText } from '../io';
import { orderPath } from './orders';

const STATUSES = ['final', 'PENDING', 'SUCCESS', 'FAILED'] as const;

export const waitCommand = command(
  {
    name: 'wait',
    summary: 'Wait until an order reaches a status (default: final); exit 1 when the time-out comes first.',
    arguments: [
      { name: 'CLIENT_ID', required: true },
      { name: 'REFERENCE', required: true },
    ],
    options: {
      status: { type: 'string', value: 'status', help: `${STATUSES.join(', ')} (default final)` },
      'timeout-s': { type: 'string', value: 'seconds', help: 'give up after this long (default 30, at most 300): 408 wait_timeout, exit 1' },
      ...BANK_OPTIONS,
      ...JSON_OPTION,
    },
    examples: ['sandbox-bank wait acme ORDER-1 --status final --timeout-s 60'],
  },
  async (parsed, io) => {
    const status = parsed.oneOf('status', STATUSES);
    const timeoutS = parsed.integer('timeout-s', 0, 300);
    const query = { status, timeout_s: timeoutS };
    // The HTTP call waits as long as the Bank may, and a little more.
    const timeoutMs = ((timeoutS ?? 30) + 10) * 1000;
    const answer = expectSuccess(await BankApi.of(parsed, io).call('GET', orderPath(parsed.arg(0) as string, parsed.arg(1) as string, '/wait'), { query, timeoutMs }), { members: ['reference', 'status'] });
    const order = answer.json as { reference: string; status: string; reason_code: string | null };
    io.stdout(parsed.flag('json') ? jsonText(order) : `${order.reference} ${order.status}${order.reason_code ? ` (${order.reason_code})` : ''}\n`);
    return EXIT.ok;
  },
);
