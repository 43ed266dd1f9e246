// Compiles the JSON schemas in schemas/ once, and turns ajv errors into the problem `errors` list.
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './project-root';
import type Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Violation } from './problems';
import { AJV_OPTIONS, SCHEMA_NAMES, SchemaName } from './schema-options';

export const SCHEMA_DIR = path.join(PROJECT_ROOT, 'schemas');
// Beside dist/wire/ (and beside the bundle in dist/bank/); from src/ under ts-jest there is none, so ajv compiles.
const PRECOMPILED_DIR = path.join(__dirname, '..', 'compiled-schemas');

const compiled = new Map<string, ValidateFunction>();
let runtimeAjv: Ajv | null = null;

/** The build's standalone validator (scripts/compile-schemas.js), when it exists. */
function precompiled(name: SchemaName): ValidateFunction | null {
  const file = path.join(PRECOMPILED_DIR, `${name}.js`);
  if (!fs.existsSync(file)) return null;
  const loaded = require(file) as ValidateFunction | { default: ValidateFunction };
  return typeof loaded === 'function' ? loaded : loaded.default;
}

function readSchema(name: SchemaName): { $id: string } {
  return JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, `${name}.schema.json`), 'utf8')) as { $id: string };
}

function schemaId(name: SchemaName): string {
  return readSchema(name).$id;
}

function compileAtRunTime(name: SchemaName): ValidateFunction {
  if (!runtimeAjv) {
    const { default: AjvClass } = require('ajv') as typeof import('ajv');
    const { addSchemaFormats } = require('./schema-formats') as typeof import('./schema-formats');
    runtimeAjv = new AjvClass(AJV_OPTIONS);
    addSchemaFormats(runtimeAjv);
    // Every schema is known by its $id, so that one may $ref another (the pull page's items are payment orders).
    for (const one of SCHEMA_NAMES) runtimeAjv.addSchema(readSchema(one));
  }
  return runtimeAjv.getSchema(schemaId(name)) ?? runtimeAjv.compile(readSchema(name));
}

export function schemaValidator(name: SchemaName): ValidateFunction {
  let validate = compiled.get(name);
  if (!validate) {
    validate = precompiled(name) ?? compileAtRunTime(name);
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
