// sandbox-bank clock attach|show|advance|detach: a client's test clock (control-plane.md section 3).
import { BANK_OPTIONS, JSON_OPTION, Parsed } from '../args';
import { BankApi, expectSuccess } from '../bank-api';
import { command, group } from '../command';
import { CliIo, EXIT, jsonText, usageError } from '../io';

const clockPath = (clientId: string, tail = '') => `/sandbox/clients/${encodeURIComponent(clientId)}/clock${tail}`;
const CLIENT_ARGUMENT = [{ name: 'CLIENT_ID', required: true }];

function printClock(io: CliIo, parsed: Parsed, json: unknown): void {
  if (parsed.flag('json')) return io.stdout(jsonText(json));
  const view = json as { client_id?: string; now?: string };
  io.stdout(view.now ? `test clock of ${view.client_id ?? parsed.arg(0)}: ${view.now}\n` : jsonText(json));
}

/** `2026-11-22T11:00:00.000Z  settlement  reference=ORDER-1 status=SUCCESS` */
function firedLine(item: Record<string, unknown>): string {
  const { at, kind, ...rest } = item;
  return [String(at), String(kind), ...Object.entries(rest).map(([name, value]) => `${name}=${String(value)}`)].join('  ');
}

const attachCommand = command(
  {
    name: 'clock attach',
    summary: "Attach a test clock to a client: its business time stops and moves only when advanced.",
    arguments: CLIENT_ARGUMENT,
    options: { 'frozen-at': { type: 'string', value: 'instant', help: 'where the clock starts (RFC 3339 UTC, e.g. 2026-11-22T10:00:00Z; default now)' }, ...BANK_OPTIONS, ...JSON_OPTION },
    examples: ['sandbox-bank clock attach acme --frozen-at 2026-11-22T10:00:00Z'],
  },
  async (parsed, io) => {
    const frozenAt = parsed.instant('frozen-at');
    const answer = expectSuccess(await BankApi.of(parsed, io).call('POST', clockPath(parsed.arg(0) as string), { body: frozenAt ? { frozen_at: frozenAt } : {} }));
    printClock(io, parsed, answer.json);
    return EXIT.ok;
  },
);

const showCommand = command(
  { name: 'clock show', summary: "Show a client's test clock.", arguments: CLIENT_ARGUMENT, options: { ...BANK_OPTIONS, ...JSON_OPTION }, examples: ['sandbox-bank clock show acme'] },
  async (parsed, io) => {
    const answer = expectSuccess(await BankApi.of(parsed, io).call('GET', clockPath(parsed.arg(0) as string)));
    printClock(io, parsed, answer.json);
    return EXIT.ok;
  },
);

const detachCommand = command(
  { name: 'clock detach', summary: 'Detach the test clock: the client is back on wall time.', arguments: CLIENT_ARGUMENT, options: { ...BANK_OPTIONS, ...JSON_OPTION }, examples: ['sandbox-bank clock detach acme'] },
  async (parsed, io) => {
    const answer = expectSuccess(await BankApi.of(parsed, io).call('DELETE', clockPath(parsed.arg(0) as string)));
    io.stdout(parsed.flag('json') ? jsonText(answer.json) : `test clock of ${parsed.arg(0)} detached\n`);
    return EXIT.ok;
  },
);

const advanceCommand = command(
  {
    name: 'clock advance',
    summary: "Move a client's test clock forward; everything due up to then fires, in time order, before the answer.",
    details: ['Give --seconds or --to (never back: 400 clock_backwards, exit 1). Prints what fired.'],
    arguments: CLIENT_ARGUMENT,
    options: {
      seconds: { type: 'string', value: 'n', help: 'advance by this many seconds (decimals allowed)' },
      to: { type: 'string', value: 'instant', help: 'advance to this RFC 3339 UTC instant' },
      ...BANK_OPTIONS,
      ...JSON_OPTION,
    },
    examples: ['sandbox-bank clock advance acme --seconds 3600'],
  },
  async (parsed, io) => {
    const seconds = parsed.seconds('seconds', 0, 10 * 365 * 86_400);
    const to = parsed.instant('to');
    if ((seconds === undefined) === (to === undefined)) throw usageError('give either --seconds or --to');
    const answer = expectSuccess(await BankApi.of(parsed, io).call('POST', clockPath(parsed.arg(0) as string, '/advance'), { body: to ? { to } : { seconds } }), { members: ['from', 'to', 'fired'] });
    if (parsed.flag('json')) io.stdout(jsonText(answer.json));
    else {
      const report = answer.json as { from: string; to: string; fired: unknown[] };
      const fired = report.fired.map((item) => `  ${firedLine(item as Record<string, unknown>)}`);
      io.stdout([`${parsed.arg(0)}: ${report.from} -> ${report.to}; ${report.fired.length} fired`, ...fired, ''].join('\n'));
    }
    return EXIT.ok;
  },
);

export const clockCommand = group('clock', 'Per-client test clocks (control-plane.md section 3).', [attachCommand, showCommand, advanceCommand, detachCommand]);
