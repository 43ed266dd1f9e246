// sandbox-bank journal list|show|clear: every exchange in and out, secrets masked (control-plane.md section 4).
import { BANK_OPTIONS, JSON_OPTION } from '../args';
import { BankApi, expectSuccess } from '../bank-api';
import { command, group } from '../command';
import { EXIT, jsonText, usageError } from '../io';
import { column, PAGE_OPTIONS, pageQuery, printJson, printPage } from '../output';

const listCommand = command(
  {
    name: 'journal list',
    summary: 'List exchanges, newest first (GET /sandbox/journal), filtered.',
    options: {
      client: { type: 'string', value: 'id', help: "this client's exchanges" },
      direction: { type: 'string', value: 'in|out', help: 'in: to the Bank; out: the Bank\'s calls' },
      code: { type: 'string', value: 'code', help: 'refused with this problem code (e.g. signature_invalid)' },
      reference: { type: 'string', value: 'ref', help: 'that involved this order reference' },
      path: { type: 'string', value: 'path', help: 'with this path' },
      since: { type: 'string', value: 'instant', help: 'at or after (RFC 3339 UTC, e.g. 2026-11-22T10:00:00Z)' },
      ...PAGE_OPTIONS,
      ...BANK_OPTIONS,
      ...JSON_OPTION,
    },
    examples: ['sandbox-bank journal list --client acme --code signature_invalid'],
  },
  async (parsed, io) => {
    const query = {
      client_id: parsed.string('client'),
      direction: parsed.oneOf('direction', ['in', 'out']),
      code: parsed.string('code'),
      reference: parsed.string('reference'),
      path: parsed.string('path'),
      since: parsed.instant('since'),
      ...pageQuery(parsed),
    };
    const answer = expectSuccess(await BankApi.of(parsed, io).call('GET', '/sandbox/journal', { query }), { members: ['data'] });
    printPage(io, parsed, answer, [
      column('ID', 'id'),
      column('AT', 'at'),
      column('DIR', 'direction'),
      column('CLIENT', 'client_id'),
      column('METHOD', 'method'),
      column('STATUS', 'status'),
      column('CODE', 'code'),
      column('PATH', 'path'),
    ], 'journal entries');
    return EXIT.ok;
  },
);

const showCommand = command(
  {
    name: 'journal show',
    summary: 'One exchange in full: request and response headers and bodies (secrets masked), and a curl to replay it.',
    details: ['--curl prints only the curl command. "sandbox-bank verify --journal <id>" explains its signature.'],
    arguments: [{ name: 'ID', required: true }],
    options: { curl: { type: 'boolean', help: 'print only the curl command that replays the request' }, ...BANK_OPTIONS, ...JSON_OPTION },
    examples: ['sandbox-bank journal show 42', 'sandbox-bank journal show 42 --curl'],
  },
  async (parsed, io) => {
    const id = parsed.arg(0) as string;
    if (!/^\d{1,15}$/.test(id)) throw usageError(`ID must be a journal entry number, got "${id}"`);
    const answer = expectSuccess(await BankApi.of(parsed, io).call('GET', `/sandbox/journal/${id}`), { members: parsed.flag('curl') ? ['curl'] : [] });
    if (parsed.flag('curl')) io.stdout(`${(answer.json as { curl: string }).curl}\n`);
    else printJson(io, answer);
    return EXIT.ok;
  },
);

const clearCommand = command(
  { name: 'journal clear', summary: 'Delete every journal entry (DELETE /sandbox/journal).', options: { ...BANK_OPTIONS, ...JSON_OPTION }, examples: ['sandbox-bank journal clear'] },
  async (parsed, io) => {
    const answer = expectSuccess(await BankApi.of(parsed, io).call('DELETE', '/sandbox/journal'), { members: ['deleted'] });
    io.stdout(parsed.flag('json') ? jsonText(answer.json) : `deleted ${(answer.json as { deleted: number }).deleted} journal entries\n`);
    return EXIT.ok;
  },
);

export const journalCommand = group('journal', 'Every exchange in and out, secrets masked (control-plane.md section 4).', [listCommand, showCommand, clearCommand]);
