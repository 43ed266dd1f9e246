// Fetches a client's JWKS from its `jwks_uri` (control-plane.md section 1) through the same TLS settings as
// callbacks: the Bank's CA and client certificate, and plain http:// only in relaxed mode. The answer must be a
// 200 JSON key set of public keys, each with a kid; its `Cache-Control: max-age` says how long to keep it.
// Every fetch is an outgoing call of that client's in the journal (control-plane.md section 4), like a pull.
import type { Clock } from '../../wire/clock';
import { Jwks, KeySet, SigningKey } from '../../wire/keys';
import { SentExchange, SignedClient, TlsMaterial } from '../../wire/signed-client';
import { FetchedJwks, JwksFetch } from '../security/remote-jwks';

/** A key set larger than this is refused (a JWKS is a few keys). */
const MAX_JWKS_BYTES = 64 * 1024;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

export interface JwksFetcherOptions {
  bankClientId: string;
  signer: SigningKey;
  clock: Clock;
  timeoutMs: number;
  tls: TlsMaterial;
  allowPlainHttp: boolean;
  /** Records each fetch as the client's outgoing exchange (the Bank's journal). */
  journal?: { recordOutbound(clientId: string | null, exchange: SentExchange): void };
}

/** max-age of a Cache-Control value in seconds; 0 for no-store / no-cache; null when it says neither. */
export function cacheMaxAge(cacheControl: unknown): number | null {
  if (typeof cacheControl !== 'string') return null;
  if (/(^|,)\s*(no-store|no-cache)\s*(,|$)/i.test(cacheControl)) return 0;
  const match = /(^|,)\s*max-age\s*=\s*"?(\d{1,9})"?\s*(,|$)/i.exec(cacheControl);
  return match ? Number(match[2]) : null;
}

/** A fetched document as a public key set, or throws saying what is wrong with it. */
export function parseJwks(text: string): Jwks {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('the answer is not JSON');
  }
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new Error('the answer is not a JWKS: it has no "keys" array');
  for (const key of keys) {
    if (key === null || typeof key !== 'object') throw new Error('every member of "keys" must be a JWK object');
    const leaked = PRIVATE_MEMBERS.filter((member) => member in key);
    if (leaked.length > 0) throw new Error(`a JWK holds private members (${leaked.join(', ')}): publish public keys only`);
  }
  const jwks = { keys } as Jwks;
  new KeySet(jwks); // every key usable for ES256, PS256 or RS256, with a kid
  return jwks;
}

export class JwksFetcher {
  private readonly client: SignedClient;

  constructor(private readonly options: JwksFetcherOptions) {
    this.client = new SignedClient({ clientId: options.bankClientId, signer: options.signer, clock: options.clock, timeoutMs: options.timeoutMs, maxSockets: 4, tls: options.tls });
  }

  /** Why the Bank will not fetch this URL at all (null: it will). */
  refusal(url: string): string | null {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return 'is not an absolute URL';
    }
    if (parsed.protocol === 'https:') return null;
    if (parsed.protocol === 'http:') return this.options.allowPlainHttp ? null : 'must be https:// (http:// is allowed in SANDBOX_MODE=relaxed only, as for callbacks)';
    return 'must be an http(s) URL';
  }

  readonly fetch: JwksFetch = async (url: string, clientId: string): Promise<FetchedJwks> => {
    const refused = this.refusal(url);
    if (refused) throw new Error(`jwks_uri ${refused}`);
    const headers = { accept: 'application/jwk-set+json, application/json' };
    const answer = await this.client.send('GET', url, headers);
    this.options.journal?.recordOutbound(clientId, { method: 'GET', url, headers, answer });
    if (answer.status === null) throw new Error(`GET ${url} failed: ${answer.error}`);
    if (answer.status !== 200) throw new Error(`GET ${url} answered ${answer.status}, not 200`);
    if (Buffer.byteLength(answer.body) > MAX_JWKS_BYTES) throw new Error(`GET ${url}: the key set is larger than ${MAX_JWKS_BYTES} bytes`);
    let jwks: Jwks;
    try {
      jwks = parseJwks(answer.body);
    } catch (error) {
      throw new Error(`GET ${url}: ${(error as Error).message}`);
    }
    return { jwks, maxAgeS: cacheMaxAge(answer.headers['cache-control']) };
  };

  close(): void {
    this.client.close();
  }
}
