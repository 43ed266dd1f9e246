// The business reason nomenclature of profile section 7, with the ISO 20022 status reason each maps to.

export interface ReasonCodeInfo {
  readonly iso20022: string | null;
  readonly message: string;
}

export const REASON_CODES = {
  BUS_INSUFFICIENT_FUNDS: { iso20022: 'AM04', message: 'Insufficient balance on the debtor account' },
  BUS_ACCOUNT_CLOSED: { iso20022: 'AC04', message: 'Account closed' },
  BUS_ACCOUNT_BLOCKED: { iso20022: 'AC06', message: 'Account blocked' },
  BUS_INVALID_ACCOUNT: { iso20022: 'AC01', message: 'Account identifier incorrect' },
  BUS_AMOUNT_LIMIT_EXCEEDED: { iso20022: 'AM02', message: 'Amount above the allowed maximum' },
  BUS_INVALID_CURRENCY: { iso20022: 'AM03', message: 'Currency not processed' },
  BUS_DUPLICATE_ORDER: { iso20022: 'AM05', message: 'Duplicate payment' },
  BUS_MANDATE_INVALID: { iso20022: 'MD01', message: 'No or invalid mandate' },
  BUS_REFUSED_BY_DEBTOR: { iso20022: 'MS02', message: 'Refused by the debtor' },
  BUS_REGULATORY: { iso20022: 'RR04', message: 'Regulatory reason' },
  BUS_NOT_SPECIFIED: { iso20022: 'MS03', message: 'Reason not specified' },
  TECH_TIMEOUT: { iso20022: null, message: "The bank's own processing timed out" },
} as const satisfies Record<string, ReasonCodeInfo>;

export type ReasonCode = keyof typeof REASON_CODES;

export function isReasonCode(value: string): value is ReasonCode {
  return Object.prototype.hasOwnProperty.call(REASON_CODES, value);
}

export function reasonMessage(code: ReasonCode): string {
  return REASON_CODES[code].message;
}
