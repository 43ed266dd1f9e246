// The few ASN.1 DER pieces an X.509 certificate of the dev PKI is made of (ITU-T X.690), written and read by hand:
// node:crypto generates the keys and signs, this only lays out the bytes. An X.509 library cost ~0.2 s to load on
// every first start (issue 7/7); these are the dozen encoders that certificate needs, and a reader for the parts
// taken back from an existing CA certificate (its subject, to name it as the issuer).

/** Tag, definite length, content. */
export function tlv(tag: number, content: Buffer): Buffer {
  const length = content.length;
  if (length < 0x80) return Buffer.concat([Buffer.from([tag, length]), content]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.concat([Buffer.from([tag, 0x80 | bytes.length, ...bytes]), content]);
}

export const sequence = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
export const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
export const octetString = (bytes: Buffer): Buffer => tlv(0x04, bytes);
export const utf8String = (text: string): Buffer => tlv(0x0c, Buffer.from(text, 'utf8'));
export const TRUE = Buffer.from([0x01, 0x01, 0xff]);
/** [n] EXPLICIT: the context tag wraps the whole encoded value. */
export const explicit = (n: number, value: Buffer): Buffer => tlv(0xa0 | n, value);
/** [n] IMPLICIT of a primitive value: the context tag replaces the value's own. */
export const implicit = (n: number, content: Buffer): Buffer => tlv(0x80 | n, content);

/** A non-negative INTEGER from its big-endian magnitude, minimal: no leading zero unless the top bit needs one. */
export function unsignedInteger(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start += 1;
  const bytes = magnitude.subarray(start);
  return tlv(0x02, bytes[0] & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

export function smallInteger(value: number): Buffer {
  return unsignedInteger(Buffer.from([value]));
}

export function objectIdentifier(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128)) groups.unshift((value & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** BIT STRING of whole bytes (keys, signatures). */
export function bitString(bytes: Buffer): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([0]), bytes]));
}

/** A named-bit BIT STRING (KeyUsage) from bit numbers, bit 0 the most significant, trailing zero bits dropped. */
export function namedBits(bits: readonly number[]): Buffer {
  const last = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(last / 8) + 1);
  for (const bit of bits) bytes[Math.floor(bit / 8)] |= 0x80 >> bit % 8;
  return tlv(0x03, Buffer.concat([Buffer.from([7 - (last % 8)]), bytes]));
}

/** RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050, in whole seconds, UTC. */
export function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`, 'latin1')) : tlv(0x18, Buffer.from(`${iso}Z`, 'latin1'));
}

/** One element read back: its tag, where its content lies, and the whole encoding. */
export interface DerElement {
  tag: number;
  content: Buffer;
  encoded: Buffer;
}

/** The element starting at `offset` (definite lengths only, as DER has). */
export function readElement(der: Buffer, offset = 0): DerElement {
  const tag = der[offset];
  let length = der[offset + 1];
  let header = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    length = 0;
    for (let index = 0; index < count; index += 1) length = length * 256 + der[offset + 2 + index];
    header += count;
  }
  const end = offset + header + length;
  if (tag === undefined || end > der.length) throw new Error('truncated DER');
  return { tag, content: der.subarray(offset + header, end), encoded: der.subarray(offset, end) };
}

/** The elements inside a constructed element's content. */
export function children(content: Buffer): DerElement[] {
  const found: DerElement[] = [];
  for (let offset = 0; offset < content.length; offset += found[found.length - 1].encoded.length) found.push(readElement(content, offset));
  return found;
}
