// Raw cases for node:http or a raw socket: repeated headers, bytes outside UTF-8 in headers, chunked bodies, odd
// request targets.
import fc from 'fast-check';
import { newNonce } from '../../helpers/bank';
import { baseCreate, baseStatus, finalize, RequestArb, WireRequest } from './requests';
import { wireBytes } from './transport';
import { BODY_LIMIT, FuzzTarget } from './types';

const SINGLE_VALUED = ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key', 'x-signature', 'authorization', 'dpop', 'content-type'];

export function rawRequests(): RequestArb {
  const arb = fc.oneof(
    // The same single-valued header twice (same or another value, any case): always header_invalid.
    fc.tuple(fc.constantFrom(...SINGLE_VALUED), fc.boolean(), fc.boolean(), fc.constantFrom<'create' | 'status'>('create', 'status')).map(([name, same, upper, flow]) => (t: FuzzTarget): WireRequest => {
      const draft = flow === 'create' ? baseCreate(t) : baseStatus(t, 'NO-SUCH-ORDER');
      const request = finalize(t, draft);
      const existing = request.headers.find(([header]) => header === name)?.[1];
      const value = same && existing !== undefined ? existing : name === 'content-type' ? 'application/json' : name === 'x-nonce' ? newNonce() : `${existing ?? 'x'}x`;
      if (existing === undefined) request.headers.push([name, value]);
      request.headers.push([upper ? name.toUpperCase() : name, value]);
      request.kind = `repeated ${name} (${flow})`;
      request.rawOnly = true;
      // Repeats are refused in check_headers; for status in strict mode the transport check comes first.
      request.expect = t.mode === 'strict' && flow === 'status' ? ['mtls_required'] : ['header_invalid'];
      return request;
    }),
    // Bytes 0x80-0xFF (not UTF-8) in header values, over a raw socket.
    fc.tuple(fc.constantFrom('x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key', 'x-signature', 'authorization', 'content-type'), fc.constantFrom('\xff', '\xc3\x28', '\xe9', '\x80\x80', '\xed\xa0\x80'), fc.boolean()).map(([name, bytes, append]) => (t: FuzzTarget): WireRequest => {
      const request = finalize(t, baseCreate(t));
      request.headers = request.headers.map(([header, value]) => [header, header === name ? (append ? `${value}${bytes}` : `${bytes}${value.slice(1)}`) : value]);
      request.kind = `latin1 bytes in ${name}`;
      const codes: Record<string, string> = { 'x-signature': 'signature_invalid', authorization: 'auth_invalid', 'content-type': 'unsupported_media_type' };
      request.expect = [codes[name] ?? 'header_invalid'];
      request.bytes = wireBytes(request, t.port);
      return request;
    }),
    // Chunked bodies over the limit, and chunked bodies that are not JSON (signed over the bytes).
    fc.tuple(fc.integer({ min: BODY_LIMIT + 1, max: 10 * BODY_LIMIT }), fc.integer({ min: 1, max: 40 })).map(([size, parts]) => (t: FuzzTarget): WireRequest => {
      const request = finalize(t, baseCreate(t));
      const body = Buffer.alloc(size, 'a');
      const chunkSize = Math.ceil(size / parts);
      const chunks: Buffer[] = [];
      for (let offset = 0; offset < size; offset += chunkSize) {
        const piece = body.subarray(offset, offset + chunkSize);
        chunks.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
      }
      chunks.push(Buffer.from('0\r\n\r\n'));
      request.headers.push(['transfer-encoding', 'chunked']);
      request.body = Buffer.concat(chunks);
      request.kind = `chunked body of ${size} bytes in ${parts} chunks`;
      request.expect = ['body_too_large'];
      request.bytes = wireBytes(request, t.port);
      return request;
    }),
    fc.tuple(fc.string({ maxLength: 300 }), fc.integer({ min: 1, max: 5 })).map(([text, parts]) => (t: FuzzTarget): WireRequest => {
      const payload = Buffer.from(`{${text}`);
      const draft = baseCreate(t);
      draft.body = payload;
      const request = finalize(t, draft);
      const chunkSize = Math.max(1, Math.ceil(payload.length / parts));
      const chunks: Buffer[] = [];
      for (let offset = 0; offset < payload.length; offset += chunkSize) {
        const piece = payload.subarray(offset, offset + chunkSize);
        chunks.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
      }
      chunks.push(Buffer.from('0\r\n\r\n'));
      request.headers.push(['transfer-encoding', 'chunked']);
      request.body = Buffer.concat(chunks);
      request.kind = 'chunked body that is not JSON';
      request.expect = ['body_malformed', 'body_invalid'];
      request.bytes = wireBytes(request, t.port);
      return request;
    }),
    // Content-Length over the limit, with little or nothing behind it.
    fc.integer({ min: BODY_LIMIT + 1, max: 1_000_000_000 }).map((declared) => (t: FuzzTarget): WireRequest => {
      const request = finalize(t, baseCreate(t));
      request.headers.push(['content-length', String(declared)]);
      request.body = Buffer.from('{}');
      request.kind = `Content-Length ${declared}`;
      request.expect = ['body_too_large'];
      request.bytes = wireBytes(request, t.port);
      return request;
    }),
    // Odd request targets, signed over the origin-form path. (An absolute-form target is no longer among them: RFC
    // 9112 section 3.2.2 has servers accept it, and it is signed as its path: test/inbound/absolute-form.test.ts.)
    fc.constantFrom('fragment', 'double-slash').map((shape) => (t: FuzzTarget): WireRequest => {
      const request = finalize(t, baseCreate(t));
      request.path = shape === 'fragment' ? '/payment-orders#x' : '//payment-orders';
      request.kind = `request target ${shape}`;
      request.expect = ['signature_invalid', 'route_not_found'];
      request.bytes = wireBytes(request, t.port);
      return request;
    }),
  );
  return { name: 'raw: repeated headers, latin1 bytes, chunked, targets', arb };
}
