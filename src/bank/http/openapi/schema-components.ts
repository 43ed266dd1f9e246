// The JSON Schemas of schemas/ turned into OpenAPI components: the one source of truth, never copied by hand.
// Each file becomes one component (schemas/create-answer.schema.json -> CreateAnswer, schemas/control/order
// .schema.json -> SandboxOrder) and each of its `definitions` one more (PaymentOrderParty); every $ref is
// rewritten to point at the component, so the document is self-contained and any OpenAPI tool can read it.
import fs from 'node:fs';
import path from 'node:path';
import { SCHEMA_DIR } from '../../../wire/schemas';

export type JsonObject = Record<string, unknown>;

/** A schema file named by its path under schemas/ without `.schema.json`: `create-answer`, `control/order`. */
export type SchemaName = string;

const SUFFIX = '.schema.json';
const ID_PREFIX = 'https://sandbox-bank.local/schemas/';
/** Directories of schemas/ whose files describe the HTTP surface (the config files' schemas are left out). */
const DIRECTORIES: Readonly<Record<string, string>> = { '': '', control: 'Sandbox' };

function pascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('');
}

/** The component name of a schema file: its directory's prefix, then the file name in PascalCase. */
export function componentName(name: SchemaName): string {
  const slash = name.lastIndexOf('/');
  const directory = slash < 0 ? '' : name.slice(0, slash);
  const prefix = DIRECTORIES[directory];
  if (prefix === undefined) throw new Error(`schemas/${name}${SUFFIX}: no component prefix for directory "${directory}"`);
  return prefix + pascalCase(name.slice(slash + 1));
}

export function componentRef(name: SchemaName, definition?: string): string {
  return `#/components/schemas/${componentName(name)}${definition ? pascalCase(definition) : ''}`;
}

/** Every schema file of the HTTP surface, by name. */
export function listSchemaFiles(root = SCHEMA_DIR): SchemaName[] {
  const names: SchemaName[] = [];
  for (const directory of Object.keys(DIRECTORIES)) {
    const dir = path.join(root, directory);
    if (!fs.existsSync(dir)) continue;
    for (const file of fs.readdirSync(dir).sort()) {
      if (file.endsWith(SUFFIX)) names.push(directory ? `${directory}/${file.slice(0, -SUFFIX.length)}` : file.slice(0, -SUFFIX.length));
    }
  }
  return names;
}

export function schemaFileExists(name: SchemaName, root = SCHEMA_DIR): boolean {
  return fs.existsSync(path.join(root, `${name}${SUFFIX}`));
}

export function readSchema(name: SchemaName, root = SCHEMA_DIR): JsonObject {
  const file = path.join(root, `${name}${SUFFIX}`);
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as JsonObject;
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
}

/** The schema file a reference names, relative to the file that holds it: `../payment-order.schema.json#/definitions/x`. */
function resolveRef(ref: string, from: SchemaName): { target: SchemaName; definition?: string } {
  const [location, fragment = ''] = ref.split('#');
  let target = from;
  if (location !== '') {
    const relative = location.startsWith(ID_PREFIX) ? location.slice(ID_PREFIX.length) : path.posix.join(path.posix.dirname(from), location);
    if (!relative.endsWith(SUFFIX)) throw new Error(`schemas/${from}${SUFFIX}: $ref "${ref}" does not name a schema file`);
    target = path.posix.normalize(relative).slice(0, -SUFFIX.length);
  }
  if (fragment === '' || fragment === '/') return { target };
  const match = /^\/definitions\/([^/]+)$/.exec(fragment);
  if (!match) throw new Error(`schemas/${from}${SUFFIX}: $ref "${ref}" points inside a schema; only #/definitions/<name> is supported`);
  return { target, definition: match[1] };
}

/** A copy of `schema` with every $ref pointing at a component, and what it refers to. */
function rewrite(schema: unknown, from: SchemaName, uses: Set<SchemaName>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => rewrite(item, from, uses));
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string') {
      const { target, definition } = resolveRef(value, from);
      uses.add(target);
      out.$ref = componentRef(target, definition);
    } else if (key === 'examples' || key === 'const' || key === 'enum' || key === 'default') {
      out[key] = value; // values, not schemas: never rewritten
    } else {
      out[key] = rewrite(value, from, uses);
    }
  }
  return out;
}

/** One file as components: the schema itself (without $schema, $id, definitions) and each definition. */
function fileComponents(name: SchemaName, schema: JsonObject, uses: Set<SchemaName>): Record<string, JsonObject> {
  const { $schema: _dialect, $id: _id, definitions, ...body } = schema;
  const components: Record<string, JsonObject> = { [componentName(name)]: rewrite(body, name, uses) as JsonObject };
  for (const [definition, value] of Object.entries((definitions ?? {}) as Record<string, unknown>)) {
    components[componentName(name) + pascalCase(definition)] = rewrite(value, name, uses) as JsonObject;
  }
  return components;
}

/**
 * The components for `names` and everything they refer to, transitively; with `includeAll`, every schema file
 * of the HTTP surface as well (so a schema added to schemas/control/ shows in the document at once).
 */
export function schemaComponents(names: Iterable<SchemaName>, includeAll = false, root = SCHEMA_DIR): Record<string, JsonObject> {
  const pending = [...names, ...(includeAll ? listSchemaFiles(root) : [])];
  const done = new Set<SchemaName>();
  const components: Record<string, JsonObject> = {};
  while (pending.length > 0) {
    const name = pending.pop() as SchemaName;
    if (done.has(name)) continue;
    done.add(name);
    const uses = new Set<SchemaName>();
    for (const [component, schema] of Object.entries(fileComponents(name, readSchema(name, root), uses))) {
      if (components[component]) throw new Error(`two schemas make the component ${component}; rename one of them`);
      components[component] = schema;
    }
    pending.push(...uses);
  }
  return Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b)));
}

/** The `examples` a schema file gives (JSON Schema keyword), for the media type that carries it. */
export function schemaExamples(name: SchemaName, root = SCHEMA_DIR): unknown[] {
  const examples = readSchema(name, root).examples;
  return Array.isArray(examples) ? examples : [];
}
