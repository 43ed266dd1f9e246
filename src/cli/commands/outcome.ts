// sandbox-bank outcome: settles a non-final order now, exactly as its scheduled settlement would
// (POST /sandbox/orders/{client_id}/{reference}/outcome).
import { BANK_OPTIONS, JSON_OPTION } from '../args';
import { BankApi, expectSuccess } from '../bank-api';
import { command } from '../command';
import { EXIT, jsonText, usageError } from '../io';
import { orderPath } from './orders';

export const outcomeCommand = command(
  {
    name: 'outcome',
    summary: 'Force the outcome of a non-final order now (same outbox, same callback as a settlement).',
    details: ['A final order is refused (409 order_final, exit 1). FAILED needs --reason-code, one of the profile\'s codes.'],
    arguments: [
      { name: 'CLIENT_ID', required: true },
      { name: 'REFERENCE', required: true },
    ],
    options: {
      status: { type: 'string', value: 'status', help: 'SUCCESS or FAILED (required)' },
      'reason-code': { type: 'string', value: 'code', help: 'the reason code of a FAILED outcome (e.g. BUS_REGULATORY)' },
      'reason-message': { type: 'string', value: 'text', help: 'the reason message (default: the code\'s text)' },
      ...BANK_OPTIONS,
      ...JSON_OPTION,
    },
    examples: ['sandbox-bank outcome acme ORDER-1 --status FAILED --reason-code BUS_REGULATORY --reason-message "sanctions hit"'],
  },
  async (parsed, io) => {
    const status = parsed.oneOf('status', ['SUCCESS', 'FAILED']);
    if (status === undefined) throw usageError('--status is required: SUCCESS or FAILED');
    const body = { status, reasonCode: parsed.string('reason-code'), reasonMessage: parsed.string('reason-message') };
    const answer = expectSuccess(await BankApi.of(parsed, io).call('POST', orderPath(parsed.arg(0) as string, parsed.arg(1) as string, '/outcome'), { body }), { members: ['order'] });
    if (parsed.flag('json')) io.stdout(jsonText(answer.json));
    else {
      const order = (answer.json as { order: { reference: string; status: string; reason_code: string | null } }).order;
      io.stdout(`${order.reference} is now ${order.status}${order.reason_code ? ` (${order.reason_code})` : ''}\n`);
    }
    return EXIT.ok;
  },
);
