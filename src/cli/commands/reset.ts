// sandbox-bank reset: deletes orders, messages, idempotency records, cursors and clock state, for one client or
// all (POST /sandbox/reset); registrations, keys and spent nonces stay.
import { BANK_OPTIONS, JSON_OPTION } from '../args';
import { BankApi, expectSuccess } from '../bank-api';
import { command } from '../command';
import { EXIT, jsonText } from '../io';

export const resetCommand = command(
  {
    name: 'reset',
    summary: "Delete orders, messages, idempotency records, poll cursors, clock state and fault profiles (one client's, or all).",
    details: ['Registrations, keys and spent nonces stay (a reset never reopens a replay). Prints what was deleted, by table.'],
    options: { client: { type: 'string', value: 'id', help: 'only this client (default: every client)' }, ...BANK_OPTIONS, ...JSON_OPTION },
    examples: ['sandbox-bank reset --client acme'],
  },
  async (parsed, io) => {
    const client = parsed.string('client');
    const answer = expectSuccess(await BankApi.of(parsed, io).call('POST', '/sandbox/reset', { body: client ? { client_id: client } : {} }), { members: ['deleted'] });
    if (parsed.flag('json')) io.stdout(jsonText(answer.json));
    else {
      const deleted = (answer.json as { deleted: Record<string, number> }).deleted;
      const counts = Object.entries(deleted).map(([table, count]) => `${table} ${count}`).join(', ');
      io.stdout(`reset ${client ?? 'every client'}: deleted ${counts || 'nothing'}\n`);
    }
    return EXIT.ok;
  },
);
