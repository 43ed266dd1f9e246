// Generators of single values: malformed header values of every kind, garbage, and small encoders.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { isJsonMediaType } from '../../../src/bank/http/steps/check_size_and_media_type';

const VISIBLE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&\'*+-.^_`|~/:;=?@[]{}()<>,"\\';
const visibleChar = fc.constantFrom(...VISIBLE.split(''));
/** Characters a header value may carry through node:http (no CR/LF/NUL); latin1 bytes included. */
const headerChar = fc.oneof({ weight: 6, arbitrary: visibleChar }, fc.constantFrom(' ', '\t', '\x80', '\xa0', '\xc3', '\xe9', '\xff'));
const headerString = (min: number, max: number) => fc.array(headerChar, { minLength: min, maxLength: max }).map((chars) => chars.join(''));
/** Header values as node:http sends them and the parser keeps them (no leading/trailing blanks). */
const trimmedHeaderString = (min: number, max: number) => headerString(min, max).map((value) => value.replace(/^[ \t]+|[ \t]+$/g, '')).filter((value) => value.length > 0);

const CLIENT_ID = /^[A-Za-z0-9._-]{1,64}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const NONCE = /^[A-Za-z0-9_-]{16,128}$/;
const VISIBLE_ASCII = (max: number) => new RegExp(`^[\\x21-\\x7E]{1,${max}}$`);

export const badClientId = fc.oneof(
  trimmedHeaderString(1, 40).filter((value) => !CLIENT_ID.test(value)),
  fc.stringMatching(/^[A-Za-z0-9._-]{65,90}$/),
  fc.constantFrom('demo connector', 'demo/../x', '../../etc/passwd', 'démo', '%2e%2e', 'demo-connector\xff'),
);
export const badRequestId = fc.oneof(trimmedHeaderString(1, 40).filter((value) => !VISIBLE_ASCII(200).test(value)), fc.stringMatching(/^[a-z0-9]{201,260}$/));
export const badIdempotencyKey = fc.oneof(trimmedHeaderString(1, 40).filter((value) => !VISIBLE_ASCII(255).test(value)), fc.stringMatching(/^[a-z0-9]{256,300}$/));
export const badTimestamp = fc.oneof(
  trimmedHeaderString(1, 30).filter((value) => !RFC3339.test(value)),
  fc.constantFrom(
    '2026-11-22 10:00:00Z', '2026-11-22T10:00:00', '2026-11-22T10:00:00+00:00', '2026-11-22T10:00Z', '1763805600', '2026-13-45T99:99:99Z',
    '2026-02-30T10:00:00Z', 'now', '2026-11-22T10:00:00.Z', '2026-11-22T10:00:00.1234567890Z', '+02026-11-22T10:00:00Z', '2026-11-22t10:00:00z',
  ),
).filter((value) => !RFC3339.test(value) || Number.isNaN(Date.parse(value)));
export const badNonce = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{1,15}$/),
  fc.stringMatching(/^[A-Za-z0-9_-]{129,160}$/),
  trimmedHeaderString(16, 40).filter((value) => !NONCE.test(value)),
);
export const badContentType = fc.oneof(
  fc.constantFrom(
    'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=iso-8859-1', 'application/jsonx', 'application/json;',
    'application/json; charset=utf-16', 'multipart/form-data; boundary=x', 'application/problem+json', 'json', '*/*', 'application/*', 'text/json',
  ),
  trimmedHeaderString(1, 40),
).filter((value) => !isJsonMediaType(value));
export const garbage = trimmedHeaderString(1, 60);

export const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url');
export const uuidLike = () => randomUUID().replace(/-/g, '');
