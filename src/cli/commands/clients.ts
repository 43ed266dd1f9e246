// sandbox-bank clients create|list|show|update|pause|resume|poll|delete: clients at run time (control-plane.md
// section 1), thin clients of /sandbox/clients. `create --save DIR` writes what the Bank shows only once into files the other commands
// and the reference Connector read: the directory is tried before the client is registered, and should a write
// still fail, the whole answer is printed rather than lost.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BANK_OPTIONS, JSON_OPTION, OptionSpec, Parsed } from '../args';
import { ApiAnswer, BankApi, expectSuccess } from '../bank-api';
import { command, group } from '../command';
import { readJsonFile } from '../credentials';
import { CliError, CliIo, EXIT, jsonText, usageError } from '../io';
import { column, PAGE_OPTIONS, pageQuery, printJson, printPage } from '../output';

const AUTH_METHODS = ['bearer', 'dpop', 'api_key'] as const;
const CALLBACK_MODES = ['unit', 'batch', 'auto'] as const;

function clientPath(id: string): string {
  return `/sandbox/clients/${encodeURIComponent(id)}`;
}

/**
 * The flags that build a client's body, shared by create (POST) and update (PATCH, where `connector` is an RFC 7396
 * merge patch: the flags given change those members only).
 */
function bodyOptions(kind: 'create' | 'update'): Record<string, OptionSpec> {
  return {
    name: { type: 'string', value: 'name', help: 'a display name' },
    'auth-methods': { type: 'string', value: 'list', help: `comma-separated: ${AUTH_METHODS.join(', ')}${kind === 'create' ? ' (default bearer,dpop)' : ''}` },
    'connector-url': { type: 'string', value: 'url', help: "the Connector's base URL (the Bank pulls and calls back there)" },
    'callback-mode': { type: 'string', value: 'mode', help: CALLBACK_MODES.join(', ') },
    'no-poll': { type: 'boolean', help: 'do not pull from this Connector' },
    ...(kind === 'update' ? { poll: { type: 'boolean' as const, help: 'pull from this Connector again' } } : {}),
    'poll-limit': { type: 'string', value: 'n', help: 'limit of each pull page' },
    'connector-token': { type: 'string', value: 'token', help: 'static Bearer token for the pull' },
    jwks: { type: 'string', value: 'file', help: kind === 'create' ? 'register these public keys instead of a generated pair' : 'replace the keys with these public keys (drops a jwks_uri)' },
    'jwks-uri': { type: 'string', value: 'url', help: kind === 'create' ? 'or fetch the public keys from this URL' : 'or fetch the public keys from this URL from now on' },
    data: { type: 'string', value: '@file|json', help: `the whole ${kind === 'update' ? 'PATCH' : 'request'} body (the flags override its members)` },
  };
}

/** The POST or PATCH body: --data as the base, the flags over it. */
function clientBody(parsed: Parsed, kind: 'create' | 'update'): Record<string, unknown> {
  const data = parsed.string('data');
  const base = data === undefined ? {} : data.startsWith('@') ? readJsonFile(data.slice(1), '--data file') : parseInline(data);
  if (typeof base !== 'object' || base === null || Array.isArray(base)) throw usageError('--data must be a JSON object');
  const body: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  const set = (name: string, value: unknown) => {
    if (value !== undefined) body[name] = value;
  };
  if (kind === 'create') set('client_id', parsed.clientId('client-id'));
  set('name', parsed.string('name'));
  const methods = parsed.csv('auth-methods');
  if (methods) {
    const unknown = methods.find((method) => !(AUTH_METHODS as readonly string[]).includes(method));
    if (unknown) throw usageError(`--auth-methods takes ${AUTH_METHODS.join(', ')}; "${unknown}" is none of them`);
    body.auth_methods = methods;
  }
  const jwks = parsed.string('jwks');
  if (jwks !== undefined) body.jwks = readJsonFile(jwks, 'JWKS file');
  set('jwks_uri', parsed.string('jwks-uri'));
  const connector: Record<string, unknown> = { ...((body.connector as Record<string, unknown> | undefined) ?? {}) };
  const url = parsed.string('connector-url');
  if (url !== undefined) connector.url = url;
  const mode = parsed.oneOf('callback-mode', CALLBACK_MODES);
  if (mode !== undefined) connector.callback_mode = mode;
  if (parsed.flag('no-poll') && parsed.flag('poll')) throw usageError('--poll and --no-poll exclude each other');
  if (parsed.flag('no-poll')) connector.poll = false;
  if (parsed.flag('poll')) connector.poll = true;
  const limit = parsed.integer('poll-limit', 1, 10_000);
  if (limit !== undefined) connector.poll_limit = limit;
  const token = parsed.string('connector-token');
  if (token !== undefined) connector.token = token;
  if (Object.keys(connector).length > 0) {
    // A new client's Connector needs its URL; a PATCH merges into the Connector it has.
    if (kind === 'create' && connector.url === undefined) throw usageError('the connector settings need --connector-url');
    body.connector = connector;
  }
  return body;
}

function parseInline(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw usageError(`--data is not JSON: ${(error as Error).message}`);
  }
}

interface Created {
  client_id: string;
  client_secret: string;
  private_jwk?: unknown;
  api_key?: string;
  certificate_pem: string | null;
  certificate_key_pem: string | null;
  ca_pem: string | null;
  examples?: { token_curl?: string; connector_env?: string };
}

function reasonOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/**
 * Before anything is registered: the --save directory exists (or can be made) and takes a new file. Otherwise the
 * secret and the private key, which the answer shows once, would have nowhere to go: a usage error, exit 3.
 */
function checkSaveDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    const probe = path.join(dir, `.sandbox-bank-probe-${randomUUID()}`);
    fs.writeFileSync(probe, '', { mode: 0o600, flag: 'wx' });
    fs.unlinkSync(probe);
  } catch (error) {
    throw usageError(`--save: cannot write into ${dir} (${reasonOf(error)}); nothing was registered`);
  }
}

/** `content` into `file` with exactly `mode`, also when the file exists already (open's mode applies only to a new one). */
function writeWithMode(file: string, content: string, mode: number): void {
  const fd = fs.openSync(file, 'w', mode);
  try {
    fs.fchmodSync(fd, mode);
    fs.writeFileSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The answer's secrets and certificates as files, owner-only (0600) where secret: the credentials, the certificate
 * key and the .env (it holds PULL_TOKEN when --connector-token is given). `written` gets each path as it is written.
 */
function saveRegistration(dir: string, created: Created, written: string[]): void {
  const id = created.client_id;
  const write = (name: string, content: string, secret: boolean) => {
    const file = path.join(dir, name);
    writeWithMode(file, content, secret ? 0o600 : 0o644);
    written.push(file);
  };
  const credentials = { client_id: id, client_secret: created.client_secret, ...(created.private_jwk ? { private_jwk: created.private_jwk } : {}), ...(created.api_key ? { api_key: created.api_key } : {}) };
  write(`${id}.credentials.json`, jsonText(credentials), true);
  if (created.certificate_pem && created.certificate_key_pem) {
    write(`${id}.crt`, created.certificate_pem, false);
    write(`${id}.key`, created.certificate_key_pem, true);
  }
  if (created.ca_pem) write('sandbox-ca.crt', created.ca_pem, false);
  if (typeof created.examples?.connector_env === 'string') write(`${id}.env`, created.examples.connector_env, true);
}

const createCommand = command(
  {
    name: 'clients create',
    summary: 'Register a client (POST /sandbox/clients); the answer shows the secret and the generated key once.',
    details: [
      'With --save DIR the answer goes to files instead: <id>.credentials.json (for --credentials and the',
      'reference Connector), <id>.crt, <id>.key and sandbox-ca.crt (mTLS), and <id>.env (the Connector settings);',
      'the secret ones owner-only. A DIR that cannot be written is exit 3 before anything is registered; a write',
      'that fails after it prints the whole answer instead (exit 1).',
    ],
    options: {
      'client-id': { type: 'string', value: 'id', help: 'the id, 1 to 64 of [A-Za-z0-9._-] (default: generated)' },
      ...bodyOptions('create'),
      save: { type: 'string', value: 'dir', help: 'write credentials, certificate, key, CA and .env into this directory' },
      ...BANK_OPTIONS,
      ...JSON_OPTION,
    },
    examples: ['sandbox-bank clients create --client-id acme --connector-url http://localhost:3000 --save ./acme'],
  },
  async (parsed, io) => {
    const api = BankApi.of(parsed, io);
    const body = clientBody(parsed, 'create');
    const dir = parsed.string('save');
    if (dir !== undefined) checkSaveDir(dir);
    const answer = expectSuccess(await api.call('POST', '/sandbox/clients', { body }), { members: ['client_id', 'client_secret'] });
    const created = answer.json as Created;
    if (dir === undefined) {
      printJson(io, answer);
      if (!parsed.flag('json')) io.stderr('The client secret and private key are shown only once: keep them (or use --save <dir>).\n');
      return EXIT.ok;
    }
    const files: string[] = [];
    try {
      saveRegistration(dir, created, files);
    } catch (error) {
      // Registered, but not saved: the answer is all there is of the secret and the key, so it goes to stdout whole.
      printJson(io, answer);
      const partly = files.length > 0 ? ` (written before that: ${files.join(', ')})` : '';
      throw new CliError(
        EXIT.failed,
        `registered ${created.client_id}, but cannot save into ${dir}: ${(error as Error).message}${partly}. ` +
          'The whole answer is on stdout instead: its client secret and private key are shown only once, keep them.',
      );
    }
    if (parsed.flag('json')) io.stdout(jsonText({ client_id: created.client_id, files }));
    else io.stdout([`registered ${created.client_id}; saved:`, ...files.map((file) => `  ${file}`), ''].join('\n'));
    return EXIT.ok;
  },
);

const listCommand = command(
  {
    name: 'clients list',
    summary: 'List the registered clients (GET /sandbox/clients), newest first.',
    options: { ...PAGE_OPTIONS, ...BANK_OPTIONS, ...JSON_OPTION },
    examples: ['sandbox-bank clients list', 'sandbox-bank clients list --json'],
  },
  async (parsed, io) => {
    const answer = expectSuccess(await BankApi.of(parsed, io).call('GET', '/sandbox/clients', { query: pageQuery(parsed) }), { members: ['data'] });
    printPage(io, parsed, answer, [
      column('CLIENT', 'client_id'),
      column('SOURCE', 'source'),
      column('AUTH', 'auth_methods'),
      { title: 'CONNECTOR', value: (row) => (row.connector as { url?: string } | null)?.url ?? null },
    ], 'clients');
    return EXIT.ok;
  },
);

function oneClient(name: 'show' | 'delete', method: 'GET' | 'DELETE', summary: string, example: string) {
  return command(
    {
      name: `clients ${name}`,
      summary,
      arguments: [{ name: 'CLIENT_ID', required: true }],
      options: { ...BANK_OPTIONS, ...JSON_OPTION },
      examples: [example],
    },
    async (parsed: Parsed, io: CliIo) => {
      const answer = expectSuccess(await BankApi.of(parsed, io).call(method, clientPath(parsed.arg(0) as string)), { notFoundIsUnknownClient: true });
      printJson(io, answer);
      return EXIT.ok;
    },
  );
}

const updateCommand = command(
  {
    name: 'clients update',
    summary: 'Change a client at run time (PATCH /sandbox/clients/{id}): in force for its very next request, pull and callback.',
    details: [
      'Only what is given changes. The connector flags are merged into the Connector the client has (RFC 7396);',
      '--data \'{"connector": null}\' removes it, and a member set to null in --data removes that member.',
      'Prints the client as changed. Unknown client: exit 2; a change the Bank refuses (400): exit 1.',
    ],
    arguments: [{ name: 'CLIENT_ID', required: true }],
    options: { ...bodyOptions('update'), ...BANK_OPTIONS, ...JSON_OPTION },
    examples: ['sandbox-bank clients update acme --connector-url http://localhost:9191 --callback-mode batch', 'sandbox-bank clients update acme --data @patch.json'],
  },
  async (parsed, io) => {
    const body = clientBody(parsed, 'update');
    if (Object.keys(body).length === 0) throw usageError('nothing to change: give a flag (--name, --auth-methods, --connector-url, ...) or --data');
    const answer = expectSuccess(await BankApi.of(parsed, io).call('PATCH', clientPath(parsed.arg(0) as string), { body }), { notFoundIsUnknownClient: true, members: ['client_id'] });
    printJson(io, answer);
    return EXIT.ok;
  },
);

/**
 * POST /sandbox/clients/{id}/<action>. The Bank answers 404 both for an unknown client and for a client without a
 * Connector to call; a look at the client tells them apart: unknown is exit 2 (as for show), no Connector exit 1.
 */
async function connectorAction(api: BankApi, clientId: string, action: 'pause' | 'resume' | 'poll', members: string[]): Promise<ApiAnswer> {
  // A poll cycle may pull many pages: it gets longer than the usual 30 s.
  const answer = await api.call('POST', `${clientPath(clientId)}/${action}`, { timeoutMs: action === 'poll' ? 600_000 : undefined });
  if (answer.status === 404) expectSuccess(await api.call('GET', clientPath(clientId)), { notFoundIsUnknownClient: true });
  return expectSuccess(answer, { members });
}

const CONNECTOR_ACTION_NOTE = 'Unknown client: exit 2; a client without a Connector the Bank calls (404): exit 1.';

const pauseCommand = command(
  {
    name: 'clients pause',
    summary: 'Stop pulling from and calling back a client\'s Connector (POST /sandbox/clients/{id}/pause); callbacks queue meanwhile.',
    details: ['Stays paused across restarts, until "clients resume". ' + CONNECTOR_ACTION_NOTE],
    arguments: [{ name: 'CLIENT_ID', required: true }],
    options: { ...BANK_OPTIONS, ...JSON_OPTION },
    examples: ['sandbox-bank clients pause acme'],
  },
  async (parsed, io) => {
    const clientId = parsed.arg(0) as string;
    const answer = await connectorAction(BankApi.of(parsed, io), clientId, 'pause', ['paused']);
    io.stdout(parsed.flag('json') ? jsonText(answer.json) : `paused ${clientId}: no pulls or callbacks until "sandbox-bank clients resume ${clientId}" (callbacks queue meanwhile)\n`);
    return EXIT.ok;
  },
);

const resumeCommand = command(
  {
    name: 'clients resume',
    summary: 'Pull from and call back a paused client\'s Connector again (POST /sandbox/clients/{id}/resume); queued callbacks go now.',
    details: [CONNECTOR_ACTION_NOTE],
    arguments: [{ name: 'CLIENT_ID', required: true }],
    options: { ...BANK_OPTIONS, ...JSON_OPTION },
    examples: ['sandbox-bank clients resume acme'],
  },
  async (parsed, io) => {
    const clientId = parsed.arg(0) as string;
    const answer = await connectorAction(BankApi.of(parsed, io), clientId, 'resume', ['paused']);
    io.stdout(parsed.flag('json') ? jsonText(answer.json) : `resumed ${clientId}: pulls and callbacks again, queued callbacks are sent now\n`);
    return EXIT.ok;
  },
);

interface PollReportView {
  clientId?: string;
  pages: number;
  accepted: number;
  duplicates: number;
  rejected: number;
  cursor?: string;
  outcome: 'ok' | 'no_content' | 'error';
  error?: string;
}

const pollCommand = command(
  {
    name: 'clients poll',
    summary: "Pull a client's Connector now, one cycle (POST /sandbox/clients/{id}/poll), and print what was pulled.",
    details: [
      'Prints pages, orders accepted, duplicates and rejected, and the cursor. A pull that failed (the Connector',
      'unreachable or its answer refused) is exit 1, as is a conformance run of that client in progress (409).',
      CONNECTOR_ACTION_NOTE,
    ],
    arguments: [{ name: 'CLIENT_ID', required: true }],
    options: { ...BANK_OPTIONS, ...JSON_OPTION },
    examples: ['sandbox-bank clients poll acme', 'sandbox-bank clients poll acme --json'],
  },
  async (parsed, io) => {
    const clientId = parsed.arg(0) as string;
    const answer = await connectorAction(BankApi.of(parsed, io), clientId, 'poll', ['outcome']);
    const report = answer.json as PollReportView;
    if (parsed.flag('json')) io.stdout(jsonText(report));
    else {
      const counts = `${report.pages} page(s), ${report.accepted} accepted, ${report.duplicates} duplicate(s), ${report.rejected} rejected`;
      io.stdout(`polled ${clientId}: ${counts}; cursor ${report.cursor ?? '-'} (${report.outcome})\n`);
    }
    if (report.outcome !== 'error') return EXIT.ok;
    io.stderr(`the pull of ${clientId} failed: ${report.error ?? 'no reason given'}\n`);
    return EXIT.failed;
  },
);

export const clientsCommand = group('clients', 'Clients at run time: register, list, show, change, pause, resume, poll, delete (control-plane.md section 1).', [
  createCommand,
  listCommand,
  oneClient('show', 'GET', 'Show one client as the Bank holds it, never a secret (GET /sandbox/clients/{id}). Unknown client: exit 2.', 'sandbox-bank clients show acme'),
  updateCommand,
  pauseCommand,
  resumeCommand,
  pollCommand,
  oneClient('delete', 'DELETE', 'Delete a client; its orders stay readable until a reset (DELETE /sandbox/clients/{id}). Unknown client: exit 2.', 'sandbox-bank clients delete acme'),
]);
