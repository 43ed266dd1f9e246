// What the journal keeps of an exchange, and how it is shown again: secrets masked (control-plane.md section 4),
// bodies cut at the configured size, and a curl command that replays the request with placeholders for secrets.
//
// Masking works in two passes over one exchange. The first masks what is known to be secret by its place
// (Authorization, DPoP and API-key headers; client_secret, access_token, api_key, token, private keys and the
// private members of a JWK in JSON, form and query bodies) and remembers each secret value it met. The second
// replaces those values wherever else they appear in the exchange (a client secret repeated in a ready-to-run
// example, a token echoed back). A marker keeps the secret's type and, for secrets of 12 characters or more,
// its last four characters: `Bearer ***abcd`. Secrets of MIN_SCRUB_LENGTH characters or more are replaced wherever
// they occur; shorter ones (`pw12345`) only where they stand as a whole token (see TOKEN_CHARS), so that a short
// secret does not replace the same letters inside a longer word.
import { cachedLast } from '../../wire/cached-last';

/** JSON members, form fields and query parameters whose value is a secret. */
const SECRET_FIELDS = new Set([
  'client_secret',
  'access_token',
  'refresh_token',
  'id_token',
  'api_key',
  'token',
  'admin_token',
  'client_assertion',
  'token_client_secret',
  'certificate_key_pem',
  'private_key',
  'password',
  'secret',
]);

/** Private members of a JWK (RFC 7518 section 6): masked inside any object with a `kty`, and in `private_jwk`. */
const JWK_PRIVATE = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth']);

/** Headers whose whole value (after the scheme) is a credential. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'dpop', 'x-api-key', 'cookie', 'set-cookie', 'x-admin-token']);

const MIN_TAIL_LENGTH = 12;
/** Secrets this long or longer are scrubbed wherever they occur, shorter ones only as whole tokens. */
const MIN_SCRUB_LENGTH = 8;

/**
 * The whole-token rule for short secrets: one is replaced where neither the character before it nor the one after
 * it could continue the same token. Token characters are letters, digits and marks of any script and `_ . ~ + / -`
 * (URL-unreserved, base64, base64url). Everything else is a boundary, `=` included: it separates a name from its
 * value (`PULL_TOKEN=pw12345`, `?a=pw12345`, cookies) and ends base64 only as padding. An escape in front counts
 * as a boundary too, a JSON one (`\n`, `\u0026`: a line of a multi-line example kept in a JSON string) or a
 * percent-encoded character (`%20`, `%3D`), erring on the side of hiding. An end of the secret that is not itself
 * a token character needs no boundary there (`pw!` is replaced in `pw!x`).
 */
const TOKEN_CHARS = String.raw`\p{L}\p{N}\p{M}_.~+/-`;
const STARTS_WITH_TOKEN_CHAR = new RegExp(`^[${TOKEN_CHARS}]`, 'u');
const ENDS_WITH_TOKEN_CHAR = new RegExp(`[${TOKEN_CHARS}]$`, 'u');
const BOUNDARY_BEFORE = new RegExp(String.raw`(?:^|[^${TOKEN_CHARS}]|\\[bfnrt]|\\u[0-9A-Fa-f]{4}|%[0-9A-Fa-f]{2})$`, 'u');
/** Enough characters before a match for BOUNDARY_BEFORE to see the longest escape (`\u0026`). */
const LOOK_BEHIND = 6;

/** A short secret, with which of its ends need a boundary in the text. */
interface ShortSecret {
  value: string;
  before: boolean;
  after: boolean;
}

/** `text` with each whole-token occurrence of a short secret replaced by its marker (the same text when none). */
function replaceWholeTokens(text: string, secret: ShortSecret): string {
  const { value } = secret;
  let at = text.indexOf(value);
  if (at < 0) return text;
  let out = '';
  let kept = 0;
  while (at >= 0) {
    const end = at + value.length;
    const alone =
      (!secret.before || BOUNDARY_BEFORE.test(text.slice(Math.max(0, at - LOOK_BEHIND), at))) &&
      (!secret.after || !STARTS_WITH_TOKEN_CHAR.test(text.slice(end, end + 2)));
    if (alone) {
      out += text.slice(kept, at) + marker(value);
      kept = end;
    }
    at = text.indexOf(value, alone ? end : at + 1);
  }
  return kept === 0 ? text : out + text.slice(kept);
}

const SECRET_MEMBER_IN_TEXT = new RegExp(`"(${[...SECRET_FIELDS, 'private_jwk', ...JWK_PRIVATE].join('|')})"(\\s*:\\s*)"((?:[^"\\\\]|\\\\.)*)"`, 'g');
const SECRET_FIELD_IN_FORM = new RegExp(`(^|[&?\\s])(${[...SECRET_FIELDS].join('|')})=([^&\\s]*)`, 'g');
const MAY_HOLD_SECRET = new RegExp(`"(?:${[...SECRET_FIELDS, 'private_jwk', 'kty'].join('|')})"\\s*:`);
const PEM_PRIVATE_KEY = /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g;

/** `type ***last4` (no tail for short secrets, whose last four characters would say too much). */
export function marker(secret: string, type?: string): string {
  const tail = secret.length >= MIN_TAIL_LENGTH ? secret.slice(-4) : '';
  return `${type ? `${type} ` : ''}***${tail}`;
}

/** A client sends the same bearer token request after request: encoded once (~1 us for a token), not per exchange. */
const uriEncoded = cachedLast(encodeURIComponent);

const IS_MARKER = /^(?:[A-Za-z][\w-]* )?\*\*\*[^*]{0,4}$/;

export type HeaderBag = Record<string, string | string[]>;

/** One exchange's secrets: masks by place, remembers the values, then scrubs them anywhere. */
export class Masker {
  /** Secrets of MIN_SCRUB_LENGTH characters or more, scrubbed wherever they occur. */
  private readonly secrets = new Set<string>();
  /** Shorter ones, longest first, scrubbed where they stand as a whole token; none in nearly every exchange. */
  private readonly shortSecrets: ShortSecret[] = [];
  /** The secrets, longest first, sorted once per change rather than for every value scrubbed. */
  private longestFirst: string[] | null = null;

  private remember(secret: string): void {
    this.keep(secret);
    const encoded = uriEncoded(secret);
    if (encoded !== secret) this.keep(encoded);
  }

  private keep(secret: string): void {
    if (secret.length >= MIN_SCRUB_LENGTH) {
      this.secrets.add(secret);
      this.longestFirst = null;
    } else if (secret.length > 0 && !this.shortSecrets.some((known) => known.value === secret)) {
      this.shortSecrets.push({ value: secret, before: STARTS_WITH_TOKEN_CHAR.test(secret), after: ENDS_WITH_TOKEN_CHAR.test(secret) });
      this.shortSecrets.sort((a, b) => b.value.length - a.value.length);
    }
  }

  private maskSecret(secret: string, type?: string): string {
    this.remember(secret);
    return marker(secret, type);
  }

  /** Lower-case names, secret values masked; undefined values dropped. */
  headers(headers: Readonly<Record<string, unknown>>): HeaderBag {
    const out: HeaderBag = {};
    for (const rawName of Object.keys(headers)) {
      const value = headers[rawName];
      if (value === undefined || value === null) continue;
      const name = rawName.toLowerCase();
      const values = Array.isArray(value) ? value.map(String) : String(value);
      out[name] = SECRET_HEADERS.has(name) ? (Array.isArray(values) ? values.map((one) => this.headerValue(name, one)) : this.headerValue(name, values)) : values;
    }
    return out;
  }

  private headerValue(name: string, value: string): string {
    if (name !== 'authorization' && name !== 'proxy-authorization') return this.maskSecret(value);
    const match = /^(\S+)\s+(.+)$/.exec(value.trim());
    if (!match) return this.maskSecret(value);
    const [, scheme, credential] = match;
    if (/^basic$/i.test(scheme)) {
      const decoded = Buffer.from(credential, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon >= 0) this.remember(decoded.slice(colon + 1));
    }
    return this.maskSecret(credential, scheme);
  }

  /** A URL with secret query parameters masked. */
  url(url: string): string {
    const query = url.indexOf('?');
    if (query < 0) return url;
    return url.slice(0, query) + url.slice(query).replace(SECRET_FIELD_IN_FORM, (_all, lead: string, name: string, value: string) => `${lead}${name}=${this.formSecret(value)}`);
  }

  /** A body as text with secrets masked: JSON by structure, forms by field, anything else by pattern. */
  body(text: string, contentType: string): string {
    const type = contentType.toLowerCase();
    if (type.includes('x-www-form-urlencoded')) return this.form(text);
    // Most bodies (payment orders, status objects, pull pages) name no secret: one scan decides.
    if (!MAY_HOLD_SECRET.test(text)) return this.pem(text);
    const trimmed = text.trimStart();
    if (type.includes('json') || trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        return JSON.stringify(this.json(JSON.parse(text) as unknown, false));
      } catch {
        // not JSON after all (or cut short): the patterns below
      }
    }
    return this.text(text);
  }

  private form(text: string): string {
    return text.replace(SECRET_FIELD_IN_FORM, (_all, lead: string, name: string, value: string) => `${lead}${name}=${this.formSecret(value)}`);
  }

  private formSecret(value: string): string {
    let decoded = value;
    try {
      decoded = decodeURIComponent(value.replace(/\+/g, ' '));
    } catch {
      // kept as sent
    }
    this.remember(value);
    return this.maskSecret(decoded);
  }

  /** Text that is not (complete) JSON: secret members and PEM private keys by pattern. */
  private text(text: string): string {
    return this.pem(
      text.replace(SECRET_MEMBER_IN_TEXT, (_all, name: string, colon: string, value: string) => `"${name}"${colon}"${this.maskSecret(value)}"`),
    );
  }

  private pem(text: string): string {
    if (!text.includes('PRIVATE KEY-----')) return text;
    return text.replace(PEM_PRIVATE_KEY, (block: string, kind: string) => {
      this.remember(block);
      return `-----BEGIN ${kind}PRIVATE KEY----- *** -----END ${kind}PRIVATE KEY-----`;
    });
  }

  private json(value: unknown, inJwk: boolean): unknown {
    if (Array.isArray(value)) return value.map((item) => this.json(item, false));
    if (value === null || typeof value !== 'object') return value;
    const object = value as Record<string, unknown>;
    const isJwk = inJwk || typeof object.kty === 'string';
    const out: Record<string, unknown> = {};
    for (const [name, member] of Object.entries(object)) {
      if (SECRET_FIELDS.has(name.toLowerCase()) || (isJwk && JWK_PRIVATE.has(name))) out[name] = this.maskAny(member);
      else if (name === 'private_jwk') out[name] = member !== null && typeof member === 'object' ? this.json(member, true) : this.maskAny(member);
      else out[name] = this.json(member, false);
    }
    return out;
  }

  private maskAny(value: unknown): unknown {
    if (value === null || value === undefined) return value;
    if (typeof value === 'string') return this.maskSecret(value);
    this.rememberStrings(value);
    return '***';
  }

  private rememberStrings(value: unknown): void {
    if (typeof value === 'string') this.remember(value);
    else if (value !== null && typeof value === 'object') for (const member of Object.values(value)) this.rememberStrings(member);
  }

  /**
   * Replaces every remembered secret value in `text` (longest first), then the short ones where they stand as a
   * whole token, and any PEM private key.
   */
  scrub(text: string): string {
    let out = this.pem(text);
    if (this.secrets.size > 0) {
      this.longestFirst ??= [...this.secrets].sort((a, b) => b.length - a.length);
      for (const secret of this.longestFirst) {
        if (out.includes(secret)) out = out.split(secret).join(marker(secret));
      }
    }
    for (const secret of this.shortSecrets) out = replaceWholeTokens(out, secret);
    return out;
  }

  /** The headers with remembered secrets scrubbed: the same object when none holds one (nearly always). */
  scrubHeaders(headers: HeaderBag): HeaderBag {
    if (this.secrets.size === 0 && this.shortSecrets.length === 0) return headers;
    let out: HeaderBag | null = null;
    for (const name of Object.keys(headers)) {
      const value = headers[name];
      const scrubbed = Array.isArray(value) ? this.scrubAll(value) : this.scrub(value);
      if (scrubbed === value) continue;
      out ??= { ...headers };
      out[name] = scrubbed;
    }
    return out ?? headers;
  }

  private scrubAll(values: string[]): string[] {
    const scrubbed = values.map((one) => this.scrub(one));
    return scrubbed.every((one, index) => one === values[index]) ? values : scrubbed;
  }
}

/** A body as the journal keeps it. */
export interface BodyRecord {
  /** The body as text (masked, possibly cut), or base64 when it is not UTF-8; null when there is none. */
  body: string | null;
  body_encoding?: 'base64';
  /** Bytes received or sent. */
  size: number;
  truncated: boolean;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes a body as UTF-8 text, or null when it is not (binary bodies are kept as base64, unmasked). */
export function bodyText(bytes: Buffer): string | null {
  try {
    return UTF8.decode(bytes);
  } catch {
    return null;
  }
}

/** Cuts `text` to `limit` bytes (a cut character becomes U+FFFD). */
export function cut(text: string, limit: number): { text: string; truncated: boolean } {
  if (text.length * 3 <= limit || Buffer.byteLength(text) <= limit) return { text, truncated: false };
  // The first `limit` UTF-16 units encode to at least `limit` bytes, so only they need encoding.
  return { text: Buffer.from(text.slice(0, limit)).subarray(0, limit).toString('utf8'), truncated: true };
}

export interface CurlSource {
  direction: 'in' | 'out';
  method: string;
  url: string;
  path: string;
  headers: HeaderBag;
  body: BodyRecord;
}

/** Headers curl computes itself, or that a replay must not copy. */
const CURL_SKIPPED = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive']);

function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function placeholderFor(name: string): string {
  return JWK_PRIVATE.has(name) ? `<PRIVATE_JWK_${name.toUpperCase()}>` : `<${name.toUpperCase()}>`;
}

function headerPlaceholder(source: CurlSource, name: string, value: string): string {
  if (name === 'dpop') return '<DPOP_PROOF>';
  if (name === 'x-api-key') return '<API_KEY>';
  if (name === 'cookie' || name === 'set-cookie') return '<COOKIE>';
  const scheme = /^(\S+) /.exec(value)?.[1] ?? '';
  if (/^basic$/i.test(scheme)) return `${scheme} <BASE64(CLIENT_ID:CLIENT_SECRET)>`;
  if (/^x-api-key$/i.test(scheme)) return `${scheme} <API_KEY>`;
  if (/^bearer$/i.test(scheme) && source.direction === 'in' && source.path.startsWith('/sandbox')) return `${scheme} <ADMIN_TOKEN>`;
  if (/^(bearer|dpop)$/i.test(scheme)) return `${scheme} <ACCESS_TOKEN>`;
  return scheme ? `${scheme} <CREDENTIALS>` : '<CREDENTIALS>';
}

/** Masked members and fields of a stored body become named placeholders (`<CLIENT_SECRET>`). */
function bodyWithPlaceholders(text: string): string {
  return text
    .replace(/"([A-Za-z_]+)"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g, (all, name: string, colon: string, value: string) =>
      IS_MARKER.test(value) && (SECRET_FIELDS.has(name.toLowerCase()) || JWK_PRIVATE.has(name) || name === 'private_jwk') ? `"${name}"${colon}"${placeholderFor(name)}"` : all,
    )
    .replace(/(^|&)([A-Za-z_]+)=([^&]*)/g, (all, lead: string, name: string, value: string) => (SECRET_FIELDS.has(name) && IS_MARKER.test(value) ? `${lead}${name}=${placeholderFor(name)}` : all));
}

/**
 * A curl command that sends the recorded request again: inbound ones to the Bank (the URL from the Host header),
 * outgoing ones to the Connector. Secrets are placeholders to fill in; TLS material too, for https.
 */
export function curlCommand(source: CurlSource): string {
  const parts = [`curl -sS -X ${source.method} ${quote(source.url)}`];
  if (source.url.startsWith('https:')) {
    parts.push(source.direction === 'in' ? '--cacert <CA_PEM> --cert <CLIENT_CERT_PEM> --key <CLIENT_KEY_PEM>' : '--cacert <CONNECTOR_CA_PEM> --cert <BANK_CLIENT_CERT_PEM> --key <BANK_CLIENT_KEY_PEM>');
  }
  for (const [name, value] of Object.entries(source.headers)) {
    if (CURL_SKIPPED.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      parts.push(`-H ${quote(`${name}: ${SECRET_HEADERS.has(name) ? headerPlaceholder(source, name, one) : one}`)}`);
    }
  }
  const { body } = source;
  let prefix = '';
  if (body.body !== null && body.body !== '') {
    if (body.body_encoding === 'base64') {
      prefix = `printf %s ${quote(body.body)} | base64 -d | `;
      parts.push('--data-binary @-');
    } else {
      parts.push(`--data-binary ${quote(bodyWithPlaceholders(body.body))}`);
    }
  }
  return prefix + parts.join(' \\\n  ');
}
