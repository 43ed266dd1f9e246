// sandbox-bank orders list|show: the orders as the Bank holds them (control-plane.md section 2).
import { BANK_OPTIONS, JSON_OPTION } from '../args';
import { BankApi, expectSuccess } from '../bank-api';
import { command, group } from '../command';
import { EXIT } from '../io';
import { column, PAGE_OPTIONS, pageQuery, printJson, printPage } from '../output';

export function orderPath(clientId: string, reference: string, tail = ''): string {
  return `/sandbox/orders/${encodeURIComponent(clientId)}/${encodeURIComponent(reference)}${tail}`;
}

const listCommand = command(
  {
    name: 'orders list',
    summary: 'List orders, newest first (GET /sandbox/orders), filtered.',
    options: {
      client: { type: 'string', value: 'id', help: 'orders of this client' },
      status: { type: 'string', value: 'status', help: 'PENDING, SUCCESS or FAILED' },
      reference: { type: 'string', value: 'ref', help: 'this reference' },
      scenario: { type: 'string', value: 'scenario', help: 'this sandbox scenario (e.g. NO_CALLBACK)' },
      source: { type: 'string', value: 'source', help: 'push or pull' },
      since: { type: 'string', value: 'instant', help: 'created at or after (RFC 3339 UTC, e.g. 2026-11-22T10:00:00Z)' },
      until: { type: 'string', value: 'instant', help: 'created before (RFC 3339 UTC)' },
      ...PAGE_OPTIONS,
      ...BANK_OPTIONS,
      ...JSON_OPTION,
    },
    examples: ['sandbox-bank orders list --client acme --status PENDING'],
  },
  async (parsed, io) => {
    const query = {
      client_id: parsed.string('client'),
      status: parsed.oneOf('status', ['PENDING', 'SUCCESS', 'FAILED']),
      reference: parsed.string('reference'),
      scenario: parsed.string('scenario'),
      source: parsed.oneOf('source', ['push', 'pull']),
      since: parsed.instant('since'),
      until: parsed.instant('until'),
      ...pageQuery(parsed),
    };
    const answer = expectSuccess(await BankApi.of(parsed, io).call('GET', '/sandbox/orders', { query }), { members: ['data'] });
    printPage(io, parsed, answer, [
      column('CLIENT', 'client_id'),
      column('REFERENCE', 'reference'),
      column('STATUS', 'status'),
      column('REASON', 'reason_code'),
      column('SCENARIO', 'scenario'),
      column('SOURCE', 'source'),
      column('CREATED', 'created_at'),
    ], 'orders');
    return EXIT.ok;
  },
);

const showCommand = command(
  {
    name: 'orders show',
    summary: 'One order with its status history, callback messages and attempts, and journal entries.',
    arguments: [
      { name: 'CLIENT_ID', required: true },
      { name: 'REFERENCE', required: true },
    ],
    options: { ...BANK_OPTIONS, ...JSON_OPTION },
    examples: ['sandbox-bank orders show acme ORDER-1'],
  },
  async (parsed, io) => {
    const answer = expectSuccess(await BankApi.of(parsed, io).call('GET', orderPath(parsed.arg(0) as string, parsed.arg(1) as string)));
    printJson(io, answer);
    return EXIT.ok;
  },
);

export const ordersCommand = group('orders', 'Orders as the Bank holds them (control-plane.md section 2).', [listCommand, showCommand]);
