// The case registry: one module per case, named by its id (conformance.md section 3), in report order.
import pullSignedRequestAccepted from './pull/signed_request_accepted';
import pullPageRespectsLimit from './pull/page_respects_limit';
import pullCursorIsAMinimum from './pull/cursor_is_a_minimum';
import pullUnsignedRejected from './pull/unsigned_rejected';
import pullBadSignatureRejected from './pull/bad_signature_rejected';
import pullMissingTokenRejected from './pull/missing_token_rejected';
import pullStaleTimestampRejected from './pull/stale_timestamp_rejected';
import pullReplayedNonceRejected from './pull/replayed_nonce_rejected';
import unitValidCallbackAccepted from './unit/valid_callback_accepted';
import unitRedeliverySameKeyAccepted from './unit/redelivery_same_key_accepted';
import unitBadSignatureRejected from './unit/bad_signature_rejected';
import unitAlgNoneRejected from './unit/alg_none_rejected';
import unitUnknownKidRejected from './unit/unknown_kid_rejected';
import unitRotatedKeyAccepted from './unit/rotated_key_accepted';
import unitStaleTimestampRejected from './unit/stale_timestamp_rejected';
import unitReplayedNonceRejected from './unit/replayed_nonce_rejected';
import unitMissingHeaderRejected from './unit/missing_header_rejected';
import unitFailedWithoutReasonRejected from './unit/failed_without_reason_rejected';
import unitFinalStatusNotChanged from './unit/final_status_not_changed';
import unitPendingThenFinalAccepted from './unit/pending_then_final_accepted';
import batchValidBatchAccepted from './batch/valid_batch_accepted';
import batchRedeliverySameBytesAccepted from './batch/redelivery_same_bytes_accepted';
import batchInvalidItemRejectsWholeBatch from './batch/invalid_item_rejects_whole_batch';
import batchBatchIdMustMatchKey from './batch/batch_id_must_match_key';
import batchBadSignatureRejected from './batch/bad_signature_rejected';
import transportClientCertificateRequired from './transport/client_certificate_required';
import transportForeignCaRefused from './transport/foreign_ca_refused';
import clientCreateSignedCorrectly from './client/create_signed_correctly';
import clientRetryReusesIdempotencyKey from './client/retry_reuses_idempotency_key';
import clientPollsWithBackoff from './client/polls_with_backoff';
import clientHonoursRetryAfter from './client/honours_retry_after';
import clientStopsAfter404 from './client/stops_after_404';
import clientStopsAfterFinal from './client/stops_after_final';
import { ConformanceCase } from '../case';

export const REGISTRY: readonly ConformanceCase[] = [
  pullSignedRequestAccepted,
  pullPageRespectsLimit,
  pullCursorIsAMinimum,
  pullUnsignedRejected,
  pullBadSignatureRejected,
  pullMissingTokenRejected,
  pullStaleTimestampRejected,
  pullReplayedNonceRejected,
  unitValidCallbackAccepted,
  unitRedeliverySameKeyAccepted,
  unitBadSignatureRejected,
  unitAlgNoneRejected,
  unitUnknownKidRejected,
  unitRotatedKeyAccepted,
  unitStaleTimestampRejected,
  unitReplayedNonceRejected,
  unitMissingHeaderRejected,
  unitFailedWithoutReasonRejected,
  unitFinalStatusNotChanged,
  unitPendingThenFinalAccepted,
  batchValidBatchAccepted,
  batchRedeliverySameBytesAccepted,
  batchInvalidItemRejectsWholeBatch,
  batchBatchIdMustMatchKey,
  batchBadSignatureRejected,
  transportClientCertificateRequired,
  transportForeignCaRefused,
  clientCreateSignedCorrectly,
  clientRetryReusesIdempotencyKey,
  clientPollsWithBackoff,
  clientHonoursRetryAfter,
  clientStopsAfter404,
  clientStopsAfterFinal,
];
