// npm run build turns schemas/ into standalone validators (dist/compiled-schemas) so that startup skips the
// ajv compiler. They must judge exactly like the run-time compiler the tests otherwise use.
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { AJV_OPTIONS, SCHEMA_NAMES } from '../src/wire/schema-options';
import { ROOT, sampleOrder } from './helpers/bank';

function runtime(name: string): ValidateFunction {
  const ajv = new Ajv(AJV_OPTIONS);
  addFormats(ajv);
  return ajv.compile(JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', `${name}.schema.json`), 'utf8')));
}

function precompiled(name: string): ValidateFunction {
  return require(path.join(ROOT, 'dist', 'compiled-schemas', `${name}.js`)) as ValidateFunction;
}

const ORDERS: unknown[] = [
  sampleOrder(),
  sampleOrder({ extra: 1 }),
  sampleOrder({ initiated_at: 'yesterday' }),
  sampleOrder({ initiated_at: '2026-13-45T99:00:00Z' }),
  sampleOrder({ total_amount: '1.234' }),
  sampleOrder({ creditors: [] }),
  sampleOrder({ debtor: { name: '', iban: 'de89' } }),
  sampleOrder({ metadata: { a: 1 } }),
  { reference: 42 },
  null,
  'text',
];

describe('precompiled schema validators', () => {
  it('exist for every schema after the build', () => {
    for (const name of SCHEMA_NAMES) expect(fs.existsSync(path.join(ROOT, 'dist', 'compiled-schemas', `${name}.js`))).toBe(true);
  });

  it.each(ORDERS.map((order, index) => [index, order]))('payment order #%s: same verdict and same errors', (_index, order) => {
    const a = runtime('payment-order');
    const b = precompiled('payment-order');
    expect(b(order)).toBe(a(order));
    expect(b.errors ?? null).toEqual(a.errors ?? null);
  });

  it('the shipped client registry passes both', () => {
    const registry = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures/clients.json'), 'utf8'));
    expect(runtime('clients')(registry)).toBe(true);
    expect(precompiled('clients')(registry)).toBe(true);
  });
});
