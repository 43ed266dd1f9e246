// sandbox-bank clients create|list|show|delete: clients at run time (control-plane.md section 1), thin clients
// of /sandbox/clients. `create --save DIR` writes what the Bank shows only once into files the other commands
// and the reference Connector read: the directory is tried before the client is registered, and should a write
// still fail, the whole answer is printed rather than lost.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BANK_OPTIONS, JSON_OPTION, Parsed } from '../args';
import { BankApi, expectSuccess } from '../bank-api';
import { command, group } from '../command';
import { readJsonFile } from '../credentials';
import { CliError, CliIo, EXIT, jsonText, usageError } from '../io';
import { column, PAGE_OPTIONS, pageQuery, printJson, printPage } from '../output';

const AUTH_METHODS = ['bearer', 'dpop', 'api_key'] as const;
const CALLBACK_MODES = ['unit', 'batch', 'auto'] as const;

function clientPath(id: string): string {
  return `/sandbox/clients/${encodeURIComponent(id)}`;
}

/** The POST body: --data as the base, the flags over it. */
function registration(parsed: Parsed): Record<string, unknown> {
  const data = parsed.string('data');
  const base = data === undefined ? {} : data.startsWith('@') ? readJsonFile(data.slice(1), '--data file') : parseInline(data);
  if (typeof base !== 'object' || base === null || Array.isArray(base)) throw usageError('--data must be a JSON object');
  const body: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  const set = (name: string, value: unknown) => {
    if (value !== undefined) body[name] = value;
  };
  set('client_id', parsed.clientId('client-id'));
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
  if (parsed.flag('no-poll')) connector.poll = false;
  const limit = parsed.integer('poll-limit', 1, 10_000);
  if (limit !== undefined) connector.poll_limit = limit;
  const token = parsed.string('connector-token');
  if (token !== undefined) connector.token = token;
  if (Object.keys(connector).length > 0) {
    if (connector.url === undefined) throw usageError('the connector settings need --connector-url');
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
      name: { type: 'string', value: 'name', help: 'a display name' },
      'auth-methods': { type: 'string', value: 'list', help: `comma-separated: ${AUTH_METHODS.join(', ')} (default bearer,dpop)` },
      'connector-url': { type: 'string', value: 'url', help: "the Connector's base URL (the Bank pulls and calls back there)" },
      'callback-mode': { type: 'string', value: 'mode', help: CALLBACK_MODES.join(', ') },
      'no-poll': { type: 'boolean', help: 'do not pull from this Connector' },
      'poll-limit': { type: 'string', value: 'n', help: 'limit of each pull page' },
      'connector-token': { type: 'string', value: 'token', help: 'static Bearer token for the pull' },
      jwks: { type: 'string', value: 'file', help: 'register these public keys instead of a generated pair' },
      'jwks-uri': { type: 'string', value: 'url', help: 'or fetch the public keys from this URL' },
      data: { type: 'string', value: '@file|json', help: 'the whole request body (the flags override its members)' },
      save: { type: 'string', value: 'dir', help: 'write credentials, certificate, key, CA and .env into this directory' },
      ...BANK_OPTIONS,
      ...JSON_OPTION,
    },
    examples: ['sandbox-bank clients create --client-id acme --connector-url http://localhost:3000 --save ./acme'],
  },
  async (parsed, io) => {
    const api = BankApi.of(parsed, io);
    const body = registration(parsed);
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

export const clientsCommand = group('clients', 'Clients at run time: register, list, show, delete (control-plane.md section 1).', [
  createCommand,
  listCommand,
  oneClient('show', 'GET', 'Show one client as the Bank holds it, never a secret (GET /sandbox/clients/{id}). Unknown client: exit 2.', 'sandbox-bank clients show acme'),
  oneClient('delete', 'DELETE', 'Delete a client; its orders stay readable until a reset (DELETE /sandbox/clients/{id}). Unknown client: exit 2.', 'sandbox-bank clients delete acme'),
]);
