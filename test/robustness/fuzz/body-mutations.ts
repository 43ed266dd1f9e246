// Create-only mutations of the body (signed correctly over the new bytes) and of Content-Type.
import fc from 'fast-check';
import { ISO_4217 } from '../../../src/bank/domain/iso4217';
import { IBANS } from '../../helpers/bank';
import { expectOnly, Mutation } from './mutation';
import { Draft, order } from './requests';
import { BODY_LIMIT } from './types';
import { badContentType } from './values';

/** The draft's body as an object (a fresh order when an earlier mutation left something else). */
function parsedBody(d: Draft): Record<string, unknown> {
  try {
    const value = JSON.parse(d.body.toString('utf8')) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // not JSON any more
  }
  return order();
}

/** `b` with one more own field first (defineProperty, so that "__proto__" is a field, as JSON.parse makes it). */
function withField(b: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, member] of [[key, value] as const, ...Object.entries(b)]) {
    if (name === key && member !== value) continue;
    Object.defineProperty(out, name, { value: member, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function firstCreditor(b: Record<string, unknown>): Record<string, unknown> {
  const first = Array.isArray(b.creditors) ? (b.creditors[0] as unknown) : undefined;
  return typeof first === 'object' && first !== null && !Array.isArray(first) ? (first as Record<string, unknown>) : {};
}

/** Create-only mutations of the body (signed correctly over the new bytes) and of Content-Type. */
export function bodyMutations(): fc.Arbitrary<Mutation> {
  const required = ['reference', 'initiated_at', 'reason', 'type', 'debtor', 'creditors', 'total_amount', 'currency'];
  const stringFields = ['reference', 'initiated_at', 'reason', 'type', 'total_amount', 'currency'];
  const nonString = fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), fc.string(), { maxKeys: 3 }));
  const nonObject = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string(), fc.array(fc.integer(), { maxLength: 3 }));
  const nonArray = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string(), fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }));
  const badAmount = fc.oneof(
    fc.constantFrom('abc', '1.234', '-5.00', '1e3', '01.00', '', ' 1.00', '1,00', '1.', '.5', '+1.00', '1 000.00', '0x10', 'NaN', 'Infinity', '1234567890123456.00', '١٢٣'),
    fc.string({ maxLength: 12 }).filter((value) => !/^(0|[1-9][0-9]{0,14})(\.[0-9]{1,2})?$/.test(value)),
  );
  const badCurrency = fc.oneof(
    fc.constantFrom('eur', 'EU', 'EURO', 'E1R', '€', ''),
    fc.stringMatching(/^[A-Z]{3}$/).filter((code) => !ISO_4217.has(code)),
  );
  const badReference = fc.oneof(
    fc.constantFrom('', '-leading-dash', '../etc/passwd', '..', 'a b', 'ref/with/slash', '%2e%2e', 'ref\u0000nul', 'ref?q=1', 'é'),
    fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{128,200}$/),
  );
  const badIban = fc.constantFrom('de89370400440532013000', 'DE89', 'DE89 3704 0044 0532 0130 00', 'XX', '', '1234567890123456', 'DE8937040044053201300012345678901234567890');
  const deep = (depth: number, leaf: unknown, kind: 'array' | 'object') => {
    let value: unknown = leaf;
    for (let level = 0; level < depth; level += 1) value = kind === 'array' ? [value] : { a: value };
    return value;
  };
  type BodyEdit = [string, (body: Record<string, unknown>) => Record<string, unknown> | Buffer, string[]];
  const invalid = ['body_invalid', 'body_too_large'];
  const edits: fc.Arbitrary<BodyEdit> = fc.oneof(
    fc.constantFrom(...required).map((field): BodyEdit => [`without ${field}`, (b) => ({ ...b, [field]: undefined }), invalid]),
    fc.tuple(fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'Reference', 'status', 'bank_reference')), fc.jsonValue({ maxDepth: 3 }))
      .filter(([key]) => ![...required, 'metadata'].includes(key))
      .map(([key, value]): BodyEdit => [`extra field ${JSON.stringify(key)}`, (b) => withField(b, key, value ?? null), invalid]),
    fc.tuple(fc.constantFrom(...stringFields), nonString).map(([field, value]): BodyEdit => [`${field} not a string`, (b) => ({ ...b, [field]: value }), invalid]),
    fc.tuple(fc.constantFrom('debtor', 'metadata'), nonObject).map(([field, value]): BodyEdit => [`${field} not an object`, (b) => ({ ...b, [field]: value }), invalid]),
    nonArray.map((value): BodyEdit => ['creditors not an array', (b) => ({ ...b, creditors: value }), invalid]),
    fc.constant<BodyEdit>(['no creditors', (b) => ({ ...b, creditors: [] }), invalid]),
    fc.tuple(fc.constantFrom('name', 'iban', 'bank_code', 'amount', 'reason'), fc.boolean()).map(([field, drop]): BodyEdit => [
      `creditor ${drop ? 'without' : 'with null'} ${field}`,
      (b) => ({ ...b, creditors: [{ ...firstCreditor(b), [field]: drop ? undefined : null }] }),
      invalid,
    ]),
    fc.tuple(fc.constantFrom('total_amount', 'creditor amount'), badAmount).map(([where, amount]): BodyEdit => [
      `invalid ${where} ${JSON.stringify(amount)}`,
      (b) => (where === 'total_amount' ? { ...b, total_amount: amount } : { ...b, creditors: [{ ...firstCreditor(b), amount }] }),
      invalid,
    ]),
    fc.integer({ min: 1, max: 99_999 }).map((cents): BodyEdit => [
      'total differs from the creditors',
      (b) => ({ ...b, total_amount: ((10_000 + cents) / 100).toFixed(2) }),
      invalid,
    ]),
    fc.constant<BodyEdit>(['zero amounts', (b) => ({ ...b, total_amount: '0.00', creditors: [{ ...firstCreditor(b), amount: '0.00' }] }), invalid]),
    badCurrency.map((currency): BodyEdit => [`currency ${JSON.stringify(currency)}`, (b) => ({ ...b, currency }), invalid]),
    badReference.map((reference): BodyEdit => [`reference ${JSON.stringify(reference.slice(0, 20))}`, (b) => ({ ...b, reference }), invalid]),
    badIban.map((iban): BodyEdit => [`debtor iban ${JSON.stringify(iban)}`, (b) => ({ ...b, debtor: { name: 'Alice', iban } }), invalid]),
    fc.constantFrom('TRANSFER', 'direct_debit', '', 'CREDIT_TRANSFER ').map((type): BodyEdit => [`type ${JSON.stringify(type)}`, (b) => ({ ...b, type }), invalid]),
    fc.constantFrom('2026-11-22', '2026-11-22T09:00:00+01:00', 'yesterday', '2026-02-30T09:00:00Z', '').map((at): BodyEdit => [`initiated_at ${JSON.stringify(at)}`, (b) => ({ ...b, initiated_at: at }), invalid]),
    fc.constantFrom('NOPE', 'FAILED:NOT_A_CODE', 'PENDING:x:SUCCESS', 'ASYNC:-1:SUCCESS', 'PENDING:1:PENDING', '').map((scenario): BodyEdit => [
      `scenario ${JSON.stringify(scenario)}`,
      (b) => ({ ...b, metadata: { sandbox_scenario: scenario } }),
      invalid,
    ]),
    fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }))).map(([key, value]): BodyEdit => [
      'metadata value not a string',
      (b) => ({ ...b, metadata: { [key]: value } }),
      invalid,
    ]),
    fc.constant<BodyEdit>(['metadata key empty', (b) => ({ ...b, metadata: { '': 'x' } }), invalid]),
    fc.integer({ min: 51, max: 80 }).map((count): BodyEdit => [`metadata with ${count} keys`, (b) => ({ ...b, metadata: Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 'v'])) }), invalid]),
    // Deep nesting, where only strings or no field at all are allowed.
    fc.tuple(fc.integer({ min: 2, max: 1500 }), fc.constantFrom<'array' | 'object'>('array', 'object'), fc.constantFrom('metadata', 'extra', 'creditors', 'debtor')).map(([depth, kind, where]): BodyEdit => [
      `${kind} nested ${depth} deep in ${where}`,
      (b) => {
        if (where === 'metadata') return { ...b, metadata: { deep: deep(depth, 'x', kind) } };
        if (where === 'extra') return { ...b, nested: deep(depth, 1, kind) };
        if (where === 'creditors') return { ...b, creditors: deep(depth, [], 'array') };
        return { ...b, debtor: deep(depth, { name: 'x', iban: IBANS.debtor }, kind) };
      },
      invalid,
    ]),
    // Huge strings: over the schema's largest maxLength (1000, metadata values), at times over the body limit too.
    fc.tuple(fc.constantFrom('reason', 'debtor name', 'creditor reason', 'metadata value', 'reference', 'bank_code'), fc.integer({ min: 1001, max: 6000 })).map(([where, length]): BodyEdit => [
      `${where} of ${length} characters`,
      (b) => {
        const long = 'x'.repeat(length);
        const creditor = firstCreditor(b);
        if (where === 'reason') return { ...b, reason: long };
        if (where === 'debtor name') return { ...b, debtor: { name: long, iban: IBANS.debtor } };
        if (where === 'creditor reason') return { ...b, creditors: [{ ...creditor, reason: long }] };
        if (where === 'metadata value') return { ...b, metadata: { initiator: long } };
        if (where === 'reference') return { ...b, reference: `R${long}` };
        return { ...b, creditors: [{ ...creditor, bank_code: long.slice(0, 36 + (length % 100)) }] };
      },
      invalid,
    ]),
    fc.integer({ min: 1001, max: 1100 }).map((count): BodyEdit => [`${count} creditors`, (b) => ({ ...b, creditors: Array.from({ length: count }, () => ({})) }), invalid]),
    // Not an order at all.
    fc.jsonValue({ maxDepth: 4 }).map((value): BodyEdit => ['random JSON', () => Buffer.from(JSON.stringify(value ?? null)), invalid]),
    fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.constantFrom('', '{', '}', '{"reference":', 'null', '[]', '{}', '""', 'true', '{"a":1,}', "{'a':1}", 'NaN', '{"a":1}{"b":2}', '\u0000', '{"total_amount": 1e999}'),
    ).map((text): BodyEdit => ['random text', () => Buffer.from(text), ['body_malformed', 'body_invalid', 'body_too_large']]),
    fc.tuple(fc.integer({ min: 1, max: 2040 }), fc.boolean()).map(([depth, balanced]): BodyEdit => [
      `raw nesting ${depth}${balanced ? '' : ' unbalanced'}`,
      () => Buffer.from(`${'['.repeat(depth)}${balanced ? ']'.repeat(depth) : ']'.repeat(depth - 1)}`),
      ['body_malformed', 'body_invalid'],
    ]),
    // The same key twice: the last one (invalid) wins in JSON.parse.
    fc.constantFrom('reference', 'total_amount', 'currency', 'type').map((field): BodyEdit => [
      `duplicate key ${field}`,
      (b) => Buffer.from(JSON.stringify(b).replace(/\}$/, `,${JSON.stringify(field)}:12345}`)),
      invalid,
    ]),
    // Invalid UTF-8 inside a string or between tokens.
    fc.tuple(fc.constantFrom([0xff], [0xc3, 0x28], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0x80], [0xfe, 0xff]), fc.boolean()).map(([bytes, inString]): BodyEdit => [
      `invalid UTF-8 ${Buffer.from(bytes).toString('hex')}`,
      (b) => {
        const json = Buffer.from(JSON.stringify(b));
        const at = inString ? json.indexOf('Invoice') + 3 : 1;
        return Buffer.concat([json.subarray(0, at), Buffer.from(bytes), json.subarray(at)]);
      },
      ['body_malformed'],
    ]),
    fc.constant<BodyEdit>(['UTF-16 body', (b) => Buffer.from(JSON.stringify(b), 'utf16le'), ['body_malformed']]),
    // Over the body limit (Content-Length says so up front).
    fc.integer({ min: BODY_LIMIT + 1, max: 4 * BODY_LIMIT }).map((size): BodyEdit => [
      `body of ${size} bytes`,
      (b) => ({ ...b, metadata: { pad: 'p'.repeat(size) } }),
      ['body_too_large'],
    ]),
  );
  return fc.oneof(
    { weight: 9, arbitrary: edits.map(([name, edit, codes]): Mutation => ({
      name,
      apply: (d) => {
        const result = edit(parsedBody(d));
        d.body = Buffer.isBuffer(result) ? result : Buffer.from(JSON.stringify(result));
        expectOnly(d, ...codes);
      },
    })) },
    // A new key for an existing reference; an existing key with another body.
    { weight: 1, arbitrary: fc.constantFrom<Mutation>(
      {
        name: 'duplicate reference',
        apply: (d, t) => {
          // Not the reference of the seeded idempotency record: with its key that could replay instead.
          d.body = Buffer.from(JSON.stringify({ ...parsedBody(d), reference: t.seeds.demoRefs[t.seeds.demoRefs.length - 1] }));
          expectOnly(d, 'duplicate_reference');
        },
      },
      {
        name: 'idempotency key reused with another body',
        apply: (d, t) => {
          d.fields['x-idempotency-key'] = t.seeds.demoIdemKey;
          if (d.body.toString('latin1') === t.seeds.demoIdemBody) d.body = Buffer.concat([d.body, Buffer.from(' ')]);
          expectOnly(d, 'idempotency_key_reused');
        },
      },
    ) },
    // Content-Type that is not JSON.
    { weight: 1, arbitrary: badContentType.map((value): Mutation => ({
      name: 'Content-Type not JSON',
      apply: (d) => {
        d.contentType = value;
        expectOnly(d, 'unsupported_media_type');
      },
    })) },
  );
}
