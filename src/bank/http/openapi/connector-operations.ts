// What a Connector must serve (contract 4.2): the pull the Bank calls and the two callbacks it sends, each
// signed by the Bank (profile section 1) with its key from GET {bank}/.well-known/jwks.json. The Connector's
// refusals are its own; the contract asks only for a 4xx/5xx (callbacks: a total rejection), so they are
// described as problem+json of any code, as the reference Connector answers.
import { AnswerSpec, OperationSpec } from './model';

export const CONNECTOR_TAGS = { pull: 'Pull', callbacks: 'Callbacks' } as const;

/** The contract asks for a 4xx/5xx and leaves the body open; problem+json (RFC 9457) as the Bank answers is best. */
const REJECTION = (what: string): AnswerSpec[] => [
  { status: '4XX', description: `Rejected, wholly: ${what} Any body; RFC 9457 problem+json with a code, as the Bank answers, is recommended (the Bank records it in its journal).` },
  { status: '5XX', description: 'The Connector failed; the Bank retries callbacks on its schedule and pulls again at the next cycle.' },
];

export const CONNECTOR_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'get',
    path: '/payment-orders',
    operationId: 'pullPaymentOrders',
    tag: CONNECTOR_TAGS.pull,
    summary: 'Serve orders to the Bank (pull)',
    description:
      'Contract 4.2.1. The Bank controls the cursor: offset is a minimum initiated_at (inclusive), not an index; the next offset is the largest initiated_at it processed. Answer orders with initiated_at >= offset in ascending order, at most limit of them, and keep no consumption state: the Bank deduplicates by reference. Verify the signature with the Bank\'s JWKS (refetch once on an unknown kid), the X-Timestamp window and the X-Nonce before answering.',
    security: [{ bearer: [] }],
    signed: 'pull',
    query: [
      { name: 'status', required: true, description: 'The status of the orders to serve (PULL status, READY by default on the Bank).', schema: { enum: ['READY', 'INITIATED', 'PENDING'] } },
      { name: 'limit', required: true, description: 'The maximum number of orders in the page.', schema: { type: 'integer', minimum: 1 } },
      { name: 'offset', required: true, description: 'Minimum initiated_at, RFC 3339 UTC.', schema: { type: 'string', format: 'date-time' } },
    ],
    answers: [
      { status: 200, description: 'A page of orders (contract 2.2).', schema: 'pull-page' },
      { status: 204, description: 'No order at or after offset.' },
      ...REJECTION('a bad query, or a request that is unsigned, badly signed, stale, replayed or without a valid token.'),
    ],
  },
  {
    method: 'post',
    path: '/callbacks/orders/status',
    operationId: 'receiveStatusCallback',
    tag: CONNECTOR_TAGS.callbacks,
    summary: 'Receive one status (unit callback)',
    description:
      'Contract 4.2.2. Sent over HTTPS with the Bank\'s client certificate. Verify the signature and Content-Digest against the raw bytes, then apply in one transaction: a final status never changes and is applied once; the same X-Idempotency-Key (a redelivery: same body bytes, fresh nonce, timestamp and signature) must answer 200 again without applying anything twice. Any 4xx/5xx is a total rejection, retried by the Bank on its schedule.',
    security: [{ mutualTLS: [] }],
    signed: 'callback',
    headers: ['ContentDigest'],
    body: { schema: 'status-update', description: 'The status update (contract 2.3) with processed_at.' },
    answers: [{ status: 200, description: 'Accepted (or already accepted under this key). The body is not read by the Bank.' }, ...REJECTION('a bad signature, timestamp or nonce, a body that breaks the contract (FAILED without reasonCode ...), or a key reused with another body.')],
  },
  {
    method: 'post',
    path: '/callbacks/orders/status/batch',
    operationId: 'receiveBatchCallback',
    tag: CONNECTOR_TAGS.callbacks,
    summary: 'Receive several statuses (batch callback)',
    description:
      'Contract 4.2.3. As the unit callback, for a batch: batch_id equals X-Idempotency-Key, every retry sends the same bytes, and the batch is applied atomically (one bad item rejects the whole batch, nothing of it applied).',
    security: [{ mutualTLS: [] }],
    signed: 'callback',
    headers: ['ContentDigest'],
    body: { schema: 'batch-callback', description: 'The batch (contract 2.5).' },
    answers: [{ status: 200, description: 'The whole batch accepted (or already accepted under this key).' }, ...REJECTION('a bad signature, timestamp or nonce, any bad item, or batch_id different from X-Idempotency-Key.')],
  },
];
