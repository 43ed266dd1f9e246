// A request as captured somewhere else, for `verify`: a raw HTTP request file (request line, headers, blank
// line, body bytes), `-H 'name: value'` lines, or a journal entry of the Bank. Names are kept in lower case;
// a repeated header is joined with ", " as node does.
import { usageError } from './io';

export interface CapturedRequest {
  method: string;
  /** Path and query exactly as sent. */
  target: string;
  headers: Map<string, string>;
  body: Buffer;
}

/** `name: value` into the map; a line without a colon is a usage error. */
export function addHeaderLine(headers: Map<string, string>, line: string, where: string): void {
  const colon = line.indexOf(':');
  if (colon <= 0) throw usageError(`${where}: "${line}" is not a "name: value" header`);
  const name = line.slice(0, colon).trim().toLowerCase();
  const value = line.slice(colon + 1).trim();
  const before = headers.get(name);
  headers.set(name, before === undefined ? value : `${before}, ${value}`);
}

/** The path and query of a request line's target (absolute-form targets are cut to their path). */
export function targetOf(raw: string): string {
  if (raw.startsWith('/')) return raw;
  try {
    const url = new URL(raw);
    return url.pathname + url.search;
  } catch {
    throw usageError(`"${raw}" is neither a path nor a URL`);
  }
}

function headEnd(bytes: Buffer): { end: number; separator: number } | null {
  const crlf = bytes.indexOf('\r\n\r\n');
  const lf = bytes.indexOf('\n\n');
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { end: crlf, separator: 4 };
  if (lf >= 0) return { end: lf, separator: 2 };
  return null;
}

/** `POST /path HTTP/1.1`, header lines, a blank line, then the body bytes as they are (no trailing newline added). */
export function parseRawRequest(bytes: Buffer, file: string): CapturedRequest {
  const split = headEnd(bytes);
  const head = (split ? bytes.subarray(0, split.end) : bytes).toString('utf8');
  const body = split ? bytes.subarray(split.end + split.separator) : Buffer.alloc(0);
  const [requestLine, ...lines] = head.split(/\r?\n/);
  const match = /^([A-Za-z]+) +(\S+)(?: +HTTP\/\d(?:\.\d)?)?\s*$/.exec(requestLine ?? '');
  if (!match) throw usageError(`${file}: the first line must be "METHOD /path HTTP/1.1", got "${requestLine ?? ''}"`);
  const headers = new Map<string, string>();
  for (const line of lines) if (line.trim() !== '') addHeaderLine(headers, line, file);
  return { method: match[1].toUpperCase(), target: targetOf(match[2]), headers, body };
}

interface JournalMessage {
  headers: Record<string, string | string[]>;
  body: string | null;
  body_encoding?: 'base64';
  truncated: boolean;
}

/** A journal entry (GET /sandbox/journal/{id}) as a request; a body the journal cut cannot be verified. */
export function requestOfJournalEntry(entry: { id: number; method: string; url: string; request: JournalMessage }): CapturedRequest {
  if (entry.request.truncated) throw usageError(`journal entry ${entry.id} kept only part of the body (JOURNAL_BODY_LIMIT): its signature cannot be checked`);
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(entry.request.headers)) headers.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
  const body = entry.request.body === null ? Buffer.alloc(0) : Buffer.from(entry.request.body, entry.request.body_encoding === 'base64' ? 'base64' : 'utf8');
  return { method: entry.method.toUpperCase(), target: targetOf(entry.url), headers, body };
}
