// The payment order as the contract (2.1) and the profile (section 9) define it.

export interface Party {
  name: string;
  iban: string;
}

export interface Creditor extends Party {
  bank_code: string;
  amount: string;
  reason: string;
}

export interface PaymentOrder {
  reference: string;
  initiated_at: string;
  reason: string;
  type: 'DIRECT_DEBIT' | 'CREDIT_TRANSFER';
  debtor: Party;
  creditors: Creditor[];
  total_amount: string;
  currency: string;
  metadata?: Record<string, string>;
}

export function allIbans(order: PaymentOrder): string[] {
  return [order.debtor.iban, ...order.creditors.map((creditor) => creditor.iban)];
}
