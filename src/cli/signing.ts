// What `request` and `sign` share: which flow a request belongs to (the profile's signed-header table), the
// flow's own headers, the body from --data, and a request written as a curl command. Signing itself is the wire
// kernel's (SignedClient.signedHeaders), and the base is the wire kernel's signatureBase: nothing re-implemented.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { SIGNED_HEADERS, SignedFlow, signatureBase } from '../wire/signature-base';
import { requestTarget } from '../wire/http-request';
import type { OptionSpec, Parsed } from './args';
import { usageError } from './io';
import { curlCertArgument, shellQuote } from '../wire/shell';

export const FLOWS = Object.keys(SIGNED_HEADERS) as SignedFlow[];

export const FLOW_OPTIONS: Record<string, OptionSpec> = {
  data: { type: 'string', short: 'd', value: '@file|json', help: 'the body: JSON text, @file, or @- for stdin' },
  flow: { type: 'string', value: 'flow', help: `the signed-header set: ${FLOWS.join(', ')} (default: from the method and path)` },
  'request-id': { type: 'string', value: 'id', help: 'X-Request-Id of a create or pull (default: a new UUID)' },
  'idempotency-key': { type: 'string', value: 'key', help: 'X-Idempotency-Key of a create, pull or callback (default: a new UUID)' },
};

/**
 * The flow of a request by its method and path: a create, reverse polling, a pull (the Bank's GET of a
 * Connector's orders) or a callback (the Bank's POST to a Connector). Null when nothing fits.
 */
export function inferFlow(method: string, path: string): SignedFlow | null {
  const pathname = path.split('?')[0];
  if (method === 'POST' && pathname === '/payment-orders') return 'create';
  if (method === 'GET' && /^\/payment-orders\/[^/]+\/status$/.test(pathname)) return 'status';
  if (method === 'GET' && pathname === '/payment-orders') return 'pull';
  if (method === 'POST') return 'callback';
  return null;
}

export function flowOf(parsed: Parsed, method: string, path: string): SignedFlow {
  const chosen = parsed.oneOf('flow', FLOWS) ?? inferFlow(method, path);
  if (!chosen) throw usageError(`cannot tell the flow of ${method} ${path}: pass --flow ${FLOWS.join('|')}`);
  return chosen;
}

/** X-Request-Id and X-Idempotency-Key where the flow signs them. */
export function flowHeaders(flow: SignedFlow, parsed: Parsed): Record<string, string> {
  const signed = SIGNED_HEADERS[flow];
  const extra: Record<string, string> = {};
  if (signed.includes('x-request-id')) extra['x-request-id'] = parsed.string('request-id') ?? randomUUID();
  if (signed.includes('x-idempotency-key')) extra['x-idempotency-key'] = parsed.string('idempotency-key') ?? randomUUID();
  return extra;
}

/** --data: JSON text as given, @file read as bytes, @- read from stdin. Empty when absent. */
export function bodyOf(parsed: Parsed, method: string): Buffer {
  const data = parsed.string('data');
  if (data === undefined) return Buffer.alloc(0);
  if (method === 'GET') throw usageError('a GET has no body: drop --data');
  if (data === '@-') return fs.readFileSync(0);
  if (data.startsWith('@')) {
    try {
      return fs.readFileSync(data.slice(1));
    } catch (error) {
      throw usageError(`cannot read --data file ${data.slice(1)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  return Buffer.from(data, 'utf8');
}

/** METHOD in upper case; the CLI signs GET and POST, the two methods of the exchange. */
export function methodOf(raw: string): 'GET' | 'POST' {
  const method = raw.toUpperCase();
  if (method !== 'GET' && method !== 'POST') throw usageError(`METHOD must be GET or POST, got "${raw}"`);
  return method;
}

/** PATH as it goes on the wire: absolute, starting with /, query included. */
export function pathOf(raw: string): string {
  if (!raw.startsWith('/')) throw usageError(`PATH must start with /, got "${raw}"`);
  return raw;
}

/** The base the signature covers, from the headers as signed (the wire kernel's own function). */
export function baseOf(flow: SignedFlow, method: string, url: URL, headers: Record<string, string>, body: Buffer): string {
  return signatureBase(flow, { method, target: requestTarget(url), headers, body });
}

/** Header names as people write them: X-Client-Id, Content-Digest. */
export function displayName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase()).replace(/^Dpop$/, 'DPoP');
}


export interface CurlInput {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: Buffer;
  tls?: { cert?: string; key?: string; ca?: string };
  /** A header whose value is a shell variable, left unquoted so the shell expands it: Authorization: Bearer $TOKEN. */
  shellHeaders?: Record<string, string>;
}

/** The request as one curl command; the body goes byte for byte (--data-binary), since the signature covers it. */
export function curlCommand(input: CurlInput): string {
  const parts = [`curl -sS -X ${input.method} ${shellQuote(input.url.href)}`];
  if (input.tls?.cert) parts.push(`--cert ${curlCertArgument(input.tls.cert)}`);
  if (input.tls?.key) parts.push(`--key ${shellQuote(input.tls.key)}`);
  if (input.tls?.ca) parts.push(`--cacert ${shellQuote(input.tls.ca)}`);
  for (const [name, value] of Object.entries(input.shellHeaders ?? {})) parts.push(`-H "${displayName(name)}: ${value}"`);
  for (const [name, value] of Object.entries(input.headers)) parts.push(`-H ${shellQuote(`${displayName(name)}: ${value}`)}`);
  if (input.body.length > 0) parts.push(`--data-binary ${shellQuote(input.body.toString('utf8'))}`);
  return `${parts.join(' \\\n  ')}\n`;
}
