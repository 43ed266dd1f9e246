// The control plane's JSON Schemas (schemas/control/), compiled once for the tests that judge real answers by them.
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ROOT } from './bank';

const DIR = path.join(ROOT, 'schemas', 'control');
let ajv: Ajv | null = null;

/** The validator of schemas/control/<name>.schema.json (strict, as the Bank compiles its request schemas). */
export function controlSchema(name: string): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
    addFormats(ajv);
    for (const file of fs.readdirSync(DIR).filter((entry) => entry.endsWith('.schema.json'))) {
      const schema = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')) as { $id?: string };
      ajv.addSchema(schema, schema.$id ? undefined : file.replace('.schema.json', ''));
    }
  }
  const validate = ajv.getSchema(`https://sandbox-bank.local/schemas/control/${name}.schema.json`) ?? ajv.getSchema(name);
  if (!validate) throw new Error(`no schema schemas/control/${name}.schema.json`);
  return validate;
}

/** Asserts that `value` matches schemas/control/<name>.schema.json, naming each violation. */
export function expectSchema(name: string, value: unknown): void {
  const validate = controlSchema(name);
  expect([name, validate(value) ? [] : validate.errors]).toEqual([name, []]);
}
