// The status object of contract 2.3, built in one place. The same object travels with different field names
// per flow, so the flow picks the variant:
//   unit callback and reverse polling: reasonCode / reasonMessage / processed_at
//   batch item (2.5):                  reasonCode / reasonMessage / timestamp
//   create answer (2.4):               reason_code / reason_message / timestamp
// Reason fields are present only when FAILED.
import { formatInstant } from './rfc3339';

export type WireStatus = 'PENDING' | 'SUCCESS' | 'FAILED';

export interface StatusReport {
  reference: string;
  bankReference: string;
  status: WireStatus;
  reasonCode: string | null;
  reasonMessage: string | null;
  processedAt: number;
}

export type StatusVariant = 'unit' | 'batch' | 'create';

export interface StatusFieldNames {
  reasonCode: string;
  reasonMessage: string;
  time: string;
}

export const STATUS_FIELD_NAMES: Readonly<Record<StatusVariant, StatusFieldNames>> = {
  unit: { reasonCode: 'reasonCode', reasonMessage: 'reasonMessage', time: 'processed_at' },
  batch: { reasonCode: 'reasonCode', reasonMessage: 'reasonMessage', time: 'timestamp' },
  create: { reasonCode: 'reason_code', reasonMessage: 'reason_message', time: 'timestamp' },
};

export const UNSPECIFIED_REASON = 'BUS_NOT_SPECIFIED';

/** Contract 2.3 (unit callback, reverse polling), 2.4 (create answer) or 2.5 (batch item). */
export function statusObject(report: StatusReport, variant: StatusVariant): Record<string, string> {
  const names = STATUS_FIELD_NAMES[variant];
  const at = formatInstant(report.processedAt);
  // Field order as the Bank has always written it, so that stored and replayed bytes stay comparable.
  const body: Record<string, string> = variant === 'create'
    ? { status: report.status, reference: report.reference, bank_reference: report.bankReference, [names.time]: at }
    : { reference: report.reference, bank_reference: report.bankReference, status: report.status };
  if (report.status === 'FAILED') {
    body[names.reasonCode] = report.reasonCode ?? UNSPECIFIED_REASON;
    body[names.reasonMessage] = report.reasonMessage ?? '';
  }
  if (variant !== 'create') body[names.time] = at;
  return body;
}
