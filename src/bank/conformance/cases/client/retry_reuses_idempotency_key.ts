import { failed, passed, skipped } from '../../case';
import { creates, defineWatchCase } from './observed';

export default defineWatchCase('client.retry_reuses_idempotency_key', (context, found) => {
  const attempts = creates(found.requests);
  if (attempts.length === 0) return skipped(`the Connector never pushed ${found.reference}`);
  const [first, ...retries] = attempts;
  if (first.status !== 500) return skipped(`the first create of ${found.reference} was answered ${first.status ?? 'nothing'}, not the 500 of FAIL_ONCE`);
  if (retries.length === 0) return failed(`the create answered 500 was never retried within the window`);
  const key = first.headers['x-idempotency-key'];
  const digest = first.headers['content-digest'] ?? first.body;
  const retry = retries[0];
  if (retry.headers['x-idempotency-key'] !== key) return failed(`the retry used X-Idempotency-Key "${retry.headers['x-idempotency-key'] ?? ''}", not "${key}"`);
  if ((retry.headers['content-digest'] ?? retry.body) !== digest) return failed('the retry had the same key but another body');
  return passed(`retried after ${((retry.at - first.answeredAt) / 1000).toFixed(1)} s with the same key and body (answered ${retry.status})`);
});
