// Step 8 of create (profile section 6): scope (client, X-Idempotency-Key), fingerprint SHA-256 of the raw body.
import { createHash } from 'node:crypto';
import { IdempotencyRecord, IdempotencyRepository } from '../../store/idempotency';
import { ProblemError } from '../../../wire/problems';
import { FlowResult } from '../flow';

export function bodyFingerprint(raw: Buffer): string {
  return createHash('sha256').update(raw).digest('hex');
}

/** The stored answer to replay, or null when the key is new. Throws 422 or 409 as the profile says. */
export function checkIdempotency(
  repository: IdempotencyRepository,
  clientId: string,
  key: string,
  fingerprint: string,
  nowMs: number,
): FlowResult | null {
  const record: IdempotencyRecord | undefined = repository.find(clientId, key, nowMs);
  if (!record) return null;
  if (record.fingerprint !== fingerprint) {
    throw new ProblemError('idempotency_key_reused', `X-Idempotency-Key "${key}" was already used with a different body`);
  }
  if (record.state === 'in_progress') {
    throw new ProblemError('idempotency_in_progress', `the first request with X-Idempotency-Key "${key}" is still being processed; retry shortly`, {
      headers: { 'Retry-After': '1' },
    });
  }
  return { status: record.statusCode ?? 500, body: record.body ?? undefined, headers: { 'Idempotent-Replayed': 'true' } };
}
