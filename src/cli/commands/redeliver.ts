// sandbox-bank redeliver: sends a callback message again, same body bytes and idempotency key
// (POST /sandbox/callbacks/{id}/redeliver), or every dead message (POST /sandbox/callbacks/redeliver).
import { BANK_OPTIONS, JSON_OPTION } from '../args';
import { BankApi, expectSuccess } from '../bank-api';
import { command } from '../command';
import { EXIT, jsonText, usageError } from '../io';

export const redeliverCommand = command(
  {
    name: 'redeliver',
    summary: 'Send a callback message again: the same body bytes under the same idempotency key, a new attempt.',
    details: ['Give a MESSAGE_ID (see "orders show"), or --dead for every dead message (of --client, or of all).'],
    arguments: [{ name: 'MESSAGE_ID', required: false }],
    options: {
      dead: { type: 'boolean', help: 'every dead message instead of one' },
      client: { type: 'string', value: 'id', help: 'with --dead: only this client\'s' },
      ...BANK_OPTIONS,
      ...JSON_OPTION,
    },
    examples: ['sandbox-bank redeliver 42', 'sandbox-bank redeliver --dead --client acme'],
  },
  async (parsed, io) => {
    const api = BankApi.of(parsed, io);
    const id = parsed.arg(0);
    if (parsed.flag('dead') === (id !== undefined)) throw usageError('give either a MESSAGE_ID or --dead');
    if (id !== undefined && parsed.string('client') !== undefined) throw usageError('--client goes with --dead');
    if (id !== undefined && !/^[1-9]\d{0,15}$/.test(id)) throw usageError(`MESSAGE_ID must be a message number, got "${id}"`);
    if (id !== undefined) {
      const answer = expectSuccess(await api.call('POST', `/sandbox/callbacks/${id}/redeliver`), { members: ['message_id'] });
      if (parsed.flag('json')) io.stdout(jsonText(answer.json));
      else {
        const message = answer.json as { message_id: number; idempotency_key: string; state: string };
        io.stdout(`message ${message.message_id} (key ${message.idempotency_key}) is ${message.state} again: sent on the next dispatch\n`);
      }
      return EXIT.ok;
    }
    const body = { state: 'dead', ...(parsed.string('client') ? { client_id: parsed.string('client') } : {}) };
    const answer = expectSuccess(await api.call('POST', '/sandbox/callbacks/redeliver', { body }), { members: ['redelivered'] });
    const ids = (answer.json as { redelivered: number[] }).redelivered;
    io.stdout(parsed.flag('json') ? jsonText(answer.json) : `${ids.length} dead message(s) sent again${ids.length ? `: ${ids.join(', ')}` : ''}\n`);
    return EXIT.ok;
  },
);
