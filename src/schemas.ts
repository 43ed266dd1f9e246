// Compiles the JSON schemas in schemas/ once, and turns ajv errors into the problem `errors` list.
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { Violation } from './domain/validation';

export const SCHEMA_DIR = path.resolve(__dirname, '..', 'schemas');

const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
addFormats(ajv);

const compiled = new Map<string, ValidateFunction>();

export function schemaValidator(name: 'payment-order' | 'rules' | 'clients'): ValidateFunction {
  let validate = compiled.get(name);
  if (!validate) {
    const schema = JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, `${name}.schema.json`), 'utf8'));
    validate = ajv.compile(schema);
    compiled.set(name, validate);
  }
  return validate;
}

function describe(error: ErrorObject): Violation {
  const base = error.instancePath;
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return { path: `${base}/${extra}`, message: 'is not an allowed field' };
  }
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return { path: `${base}/${missing}`, message: 'is required' };
  }
  return { path: base === '' ? '/' : base, message: error.message ?? 'is invalid' };
}

export function violationsOf(validate: ValidateFunction): Violation[] {
  return (validate.errors ?? []).map(describe);
}

/** Reads and validates a JSON config file; throws an Error that names the file and each violation. */
export function loadJsonFile<T>(file: string, schema: 'rules' | 'clients'): T {
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: cannot read JSON: ${(error as Error).message}`);
  }
  const validate = schemaValidator(schema);
  if (!validate(data)) {
    const lines = violationsOf(validate).map((violation) => `${violation.path} ${violation.message}`);
    throw new Error(`${file} does not match schemas/${schema}.schema.json:\n  ${lines.join('\n  ')}`);
  }
  return data as T;
}
