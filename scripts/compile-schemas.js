#!/usr/bin/env node
// Part of `npm run build`: compiles schemas/*.schema.json into standalone validators (ajv standalone code) in
// dist/compiled-schemas/, so the Bank does not load and run the ajv compiler at every start (~60 ms).
// src/wire/schemas.ts falls back to compiling at run time when these files are missing (tests run from src/).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Ajv = require('ajv').default;
const standaloneCode = require('ajv/dist/standalone').default;
const { _ } = require('ajv/dist/compile/codegen');
const { AJV_OPTIONS, SCHEMA_NAMES } = require('../dist/wire/schema-options');
const { addSchemaFormats } = require('../dist/wire/schema-formats');

const root = path.resolve(__dirname, '..');
const out = path.join(root, 'dist', 'compiled-schemas');
fs.mkdirSync(out, { recursive: true });
const schemaOf = (name) => JSON.parse(fs.readFileSync(path.join(root, 'schemas', `${name}.schema.json`), 'utf8'));
for (const name of SCHEMA_NAMES) {
  // The generated files (dist/compiled-schemas/) take their formats from dist/wire/schema-formats.js.
  const ajv = new Ajv({ ...AJV_OPTIONS, code: { source: true, formats: _`require("../wire/schema-formats").SCHEMA_FORMATS` } });
  addSchemaFormats(ajv);
  // A schema may $ref another one of schemas/ (the pull page's items are payment orders).
  for (const other of SCHEMA_NAMES) if (other !== name) ajv.addSchema(schemaOf(other));
  fs.writeFileSync(path.join(out, `${name}.js`), standaloneCode(ajv, ajv.compile(schemaOf(name))));
}
