// The exchange hashes the raw body once for the whole request (the signature base's content-digest line and the
// idempotency fingerprint read the same digest), and a new body is hashed anew.
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Logger } from 'winston';
import { newExchange } from '../../src/bank/http/flow';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest();

describe('Exchange.bodySha256', () => {
  const exchange = () => newExchange({ headers: {} } as Request, { locals: { requestId: 'req-1' } } as unknown as Response, {} as Logger, 0);

  it('is the SHA-256 of the body read, taken once', () => {
    const one = exchange();
    one.rawBody = Buffer.from('{"reference":"ORD-1"}');
    expect(one.bodySha256.equals(sha256(one.rawBody))).toBe(true);
    expect(one.bodySha256).toBe(one.bodySha256);
  });

  it('follows the body: asked before the body was read, it does not keep the empty body\'s digest', () => {
    const one = exchange();
    expect(one.bodySha256.equals(sha256(Buffer.alloc(0)))).toBe(true);
    one.rawBody = Buffer.from('{"reference":"ORD-2"}');
    expect(one.bodySha256.equals(sha256(Buffer.from('{"reference":"ORD-2"}')))).toBe(true);
  });
});
