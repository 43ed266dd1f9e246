// The Bank as the control-plane commands see it: its URL, the admin token, and one call per endpoint, with the
// answer judged the same way everywhere (2xx done; a refusal exit 1; the Bank unreachable, a 5xx, a refused
// admin token, or an answer that is not the Bank's JSON exit 2). Every command is a thin client of its /sandbox
// endpoint (control-plane.md).
import type { TlsMaterial } from '../wire/signed-client';
import { httpCall, HttpAnswer, parseJsonText, Unreachable } from './http';
import type { Parsed } from './args';
import { CliError, CliIo, EXIT, ExitCode, unavailable, usageError } from './io';

export const DEFAULT_BANK_URL = 'http://localhost:8080';

export interface ApiAnswer extends HttpAnswer {
  /** The body as JSON (undefined when it is not JSON). */
  json: unknown;
  /** The request it answers, to name in a message. */
  method?: string;
  url?: URL;
}

/** What came back, for a message: `200, text/html, 1234 bytes: "<!doctype html>…"`. */
export function answerSummary(answer: HttpAnswer): string {
  const type = answer.headers['content-type'] ?? 'no Content-Type';
  const FIRST = 80;
  const first = answer.text.slice(0, FIRST);
  const bytes = `${answer.body.length} byte${answer.body.length === 1 ? '' : 's'}`;
  return `${answer.status}, ${type}, ${bytes}${first === '' ? '' : `: ${JSON.stringify(first)}${answer.text.length > FIRST ? '…' : ''}`}`;
}

/** Exit 2: the answer is not the JSON this command reads (a wrong --bank, a proxy's page). */
export function unexpectedAnswer(answer: ApiAnswer, expected: string): CliError {
  const request = answer.url ? `${answer.method ?? 'GET'} ${answer.url.href}` : 'the request';
  return unavailable(`${request} answered ${answerSummary(answer)}; expected ${expected} (is --bank the Sandbox Bank?)`);
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** --bank, else $SANDBOX_BANK_URL, else http://localhost:8080; an http(s) URL or a usage error. */
export function bankUrlOf(parsed: Parsed, io: CliIo): URL {
  const raw = parsed.string('bank') ?? io.env.SANDBOX_BANK_URL ?? DEFAULT_BANK_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`--bank must be a URL such as ${DEFAULT_BANK_URL}, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`--bank must be an http:// or https:// URL, got "${raw}"`);
  return url;
}

/** A path under the Bank's URL (which may carry a prefix of its own). */
export function bankEndpoint(base: URL, path: string, query: Record<string, string | number | undefined> = {}): URL {
  const url = new URL(base.href.replace(/\/?$/, '/') + path.replace(/^\//, ''));
  for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value));
  return url;
}

export class BankApi {
  constructor(
    readonly base: URL,
    private readonly adminToken: string | null,
    private readonly tls?: TlsMaterial,
  ) {}

  static of(parsed: Parsed, io: CliIo, tls?: TlsMaterial): BankApi {
    return new BankApi(bankUrlOf(parsed, io), parsed.string('admin-token') ?? io.env.ADMIN_TOKEN ?? null, tls);
  }

  url(path: string, query: Record<string, string | number | undefined> = {}): URL {
    return bankEndpoint(this.base, path, query);
  }

  /** The admin token as an Authorization header (none when no token is set). */
  adminHeaders(): Record<string, string> {
    return this.adminToken ? { authorization: `Bearer ${this.adminToken}` } : {};
  }

  /** One call; a Bank that does not answer is exit 2. */
  async call(method: string, path: string, options: { query?: Record<string, string | number | undefined>; body?: unknown; timeoutMs?: number } = {}): Promise<ApiAnswer> {
    const headers: Record<string, string> = { accept: 'application/json', ...this.adminHeaders() };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const answer = await this.send({ method, url: this.url(path, options.query), headers, body, timeoutMs: options.timeoutMs });
    // Every /sandbox answer, a refusal included, is a JSON object: anything else is not the Bank speaking.
    if (!isJsonObject(answer.json)) throw unexpectedAnswer(answer, "the Bank's JSON");
    return answer;
  }

  /** A GET of any URL (a report link), with the admin token when it is the Bank's. */
  async fetch(url: URL): Promise<ApiAnswer> {
    return this.send({ method: 'GET', url, headers: url.origin === this.base.origin ? this.adminHeaders() : {} });
  }

  private async send(call: { method: string; url: URL; headers: Record<string, string>; body?: string; timeoutMs?: number }): Promise<ApiAnswer> {
    try {
      const answer = await httpCall({ ...call, tls: this.tls });
      return { ...answer, json: parseJsonText(answer.text), method: call.method, url: call.url };
    } catch (error) {
      if (error instanceof Unreachable) throw unavailable(`cannot reach the Bank at ${this.base.origin}: ${error.message}`);
      throw error;
    }
  }
}

function member(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/** `404 not_found: no order "X" for client Y`, with the problem's errors, one a line. */
export function problemText(answer: ApiAnswer): string {
  const code = member(answer.json, 'code') ?? member(answer.json, 'error');
  const detail = member(answer.json, 'detail') ?? member(answer.json, 'error_description');
  const head = typeof code === 'string' ? `${answer.status} ${code}${typeof detail === 'string' ? `: ${detail}` : ''}` : `${answer.status} ${answer.text.slice(0, 300)}`;
  const errors = member(answer.json, 'errors');
  const lines = Array.isArray(errors) ? errors.map((error) => `  ${String(member(error, 'path') ?? '')} ${String(member(error, 'message') ?? '')}`.trimEnd()) : [];
  return [head, ...lines].join('\n');
}

export interface Judgement {
  /** A 404 here means the client named on the command line does not exist: exit 2, as for conformance. */
  notFoundIsUnknownClient?: boolean;
  /** The members a 2xx answer must have for the command to read it; one missing is exit 2, not a crash. */
  members?: readonly string[];
}

/** The exit code of a non-2xx answer. */
export function exitCodeOf(answer: ApiAnswer, judgement: Judgement = {}): ExitCode {
  const code = member(answer.json, 'code');
  if (answer.status >= 500) return EXIT.unavailable;
  if ((answer.status === 401 || answer.status === 403) && (code === 'auth_missing' || code === 'auth_invalid')) return EXIT.unavailable;
  if (answer.status === 404 && (judgement.notFoundIsUnknownClient || code === 'route_not_found')) return EXIT.unavailable;
  return EXIT.failed;
}

/** The answer when it is 2xx; otherwise a CliError with the problem and the right exit code. */
export function expectSuccess(answer: ApiAnswer, judgement: Judgement = {}): ApiAnswer {
  if (answer.status >= 200 && answer.status < 300) {
    const members = judgement.members ?? [];
    if (members.some((name) => member(answer.json, name) === undefined)) throw unexpectedAnswer(answer, `a JSON object with ${members.map((name) => `"${name}"`).join(', ')}`);
    return answer;
  }
  const exit = exitCodeOf(answer, judgement);
  const hint =
    (answer.status === 401 || answer.status === 403) && exit === EXIT.unavailable
      ? '\n(the control plane needs the admin token: --admin-token or $ADMIN_TOKEN)'
      : member(answer.json, 'code') === 'route_not_found'
        ? '\n(is --bank the Sandbox Bank, and recent enough to serve this endpoint?)'
        : '';
  const text = `refused: ${problemText(answer)}${hint}`;
  throw new CliError(exit, text);
}
