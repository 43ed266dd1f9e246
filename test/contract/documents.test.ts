// The two OpenAPI documents are valid OpenAPI 3.1 (a real validator: @readme/openapi-parser), every example in
// them matches its schema, every schema file of the HTTP surface is used by an operation, every problem code of
// the profile is documented, and GET /docs is a self-contained page that renders in a browser with no request.
import fs from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import { compileErrors, validate } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { chromium } from 'playwright-core';
import request from 'supertest';
import { BANK_OPERATIONS } from '../../src/bank/http/openapi/bank-operations';
import { CONNECTOR_OPERATIONS } from '../../src/bank/http/openapi/connector-operations';
import { CONTROL_OPERATIONS } from '../../src/bank/http/openapi/control-operations';
import { documentedOperations } from '../../src/bank/http/openapi/document';
import { bankDocument, connectorDocument } from '../../src/bank/http/openapi/documents';
import { listSchemaFiles } from '../../src/bank/http/openapi/schema-components';
import { PROBLEM_TYPES } from '../../src/wire/problems';
import { startBank } from '../helpers/bank';

type JsonObject = Record<string, unknown>;

const bank = bankDocument({ httpPort: 8080, httpsPort: 8443 });
const connector = connectorDocument();
const DOCUMENTS: [string, JsonObject][] = [
  ['the Bank', bank],
  ['the Connector', connector],
];
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Every example of a document with the JSON pointer of the schema it illustrates. */
function examplesOf(doc: JsonObject): { where: string; schema: string; value: unknown }[] {
  const found: { where: string; schema: string; value: unknown }[] = [];
  const media = (base: string, content: JsonObject | undefined) => {
    for (const [type, raw] of Object.entries(content ?? {})) {
      for (const [name, example] of Object.entries(((raw as JsonObject).examples ?? {}) as Record<string, JsonObject>)) {
        found.push({ where: `${base}/content/${type}/examples/${name}`, schema: `${base}/content/${escapePointer(type)}/schema`, value: example.value });
      }
    }
  };
  for (const section of ['paths', 'webhooks']) {
    for (const [key, item] of Object.entries((doc[section] ?? {}) as Record<string, JsonObject>)) {
      for (const method of METHODS.filter((one) => item[one])) {
        const base = `/${section}/${escapePointer(key)}/${method}`;
        const operation = item[method] as JsonObject;
        media(`${base}/requestBody`, (operation.requestBody as JsonObject | undefined)?.content as JsonObject | undefined);
        for (const status of Object.keys(operation.responses as JsonObject)) media(`${base}/responses/${status}`, ((operation.responses as JsonObject)[status] as JsonObject).content as JsonObject | undefined);
      }
    }
  }
  const components = doc.components as JsonObject;
  for (const [name, parameter] of Object.entries((components.parameters ?? {}) as Record<string, JsonObject>)) {
    if (parameter.example !== undefined) found.push({ where: `/components/parameters/${name}/example`, schema: `/components/parameters/${name}/schema`, value: parameter.example });
  }
  for (const [name, schema] of Object.entries((components.schemas ?? {}) as Record<string, JsonObject>)) {
    for (const [index, value] of ((schema.examples ?? []) as unknown[]).entries()) found.push({ where: `/components/schemas/${name}/examples/${index}`, schema: `/components/schemas/${name}`, value });
  }
  return found;
}

describe('the OpenAPI documents', () => {
  it.each(DOCUMENTS)('%s: valid OpenAPI 3.1', async (_name, doc) => {
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? [] : compileErrors(result)).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  it.each(DOCUMENTS)('%s: every example matches the schema it illustrates', (_name, doc) => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, 'urn:openapi:doc');
    const examples = examplesOf(doc);
    expect(examples.length).toBeGreaterThan(5);
    const wrong = examples.flatMap(({ where, schema, value }) => {
      const check = ajv.compile({ $ref: `urn:openapi:doc#${schema}` });
      return check(value) ? [] : [`${where}: ${ajv.errorsText(check.errors)}`];
    });
    expect(wrong).toEqual([]);
  });

  it('every schema file of schemas/ and schemas/control/ is used by an operation (the config files aside)', () => {
    const used = new Set<string>();
    for (const operation of documentedOperations([...BANK_OPERATIONS, ...CONTROL_OPERATIONS, ...CONNECTOR_OPERATIONS])) {
      if (operation.body) used.add(operation.body.schema);
      for (const answer of [...operation.answers, ...(operation.specialErrors ?? [])]) if (typeof answer.schema === 'string') used.add(answer.schema);
    }
    const referenced = JSON.stringify([bank, connector]);
    const orphans = listSchemaFiles().filter((name) => !['clients', 'rules'].includes(name) && !used.has(name) && !referenced.includes(`"#/components/schemas/${componentOf(name)}"`));
    // A new file here needs its line in src/bank/http/openapi/control-operations.ts (see the pattern at its top).
    expect(orphans).toEqual([]);
  });

  it('every problem code of the profile is documented on some operation (route_not_found and method_not_allowed answer undocumented ones)', () => {
    const text = JSON.stringify(bank);
    const missing = Object.keys(PROBLEM_TYPES).filter((code) => !['route_not_found', 'method_not_allowed'].includes(code) && !text.includes(`urn:sandbox-bank:problem:${code}"`));
    expect(missing).toEqual([]);
  });

  it("every Bank operation but the token endpoint lists the parser's 408 and 431 (the wait keeps its own 408)", () => {
    const missing: string[] = [];
    for (const [route, item] of Object.entries(bank.paths as Record<string, Record<string, { responses: Record<string, { description: string }> }>>)) {
      for (const [method, operation] of Object.entries(item)) {
        if (route === '/oauth/token') continue;
        if (!operation.responses['431']?.description.includes('size limit')) missing.push(`${method} ${route}: 431`);
        if (!operation.responses['408']) missing.push(`${method} ${route}: 408`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every signed flow lists its signature headers as required parameters, in the signature base order', () => {
    const create = (bank.paths as JsonObject)['/payment-orders'] as JsonObject;
    const names = ((create.post as JsonObject).parameters as JsonObject[]).map((parameter) => String(parameter.$ref).split('/').pop());
    expect(names).toEqual(['XClientId', 'XRequestId', 'XTimestamp', 'XNonce', 'XIdempotencyKey', 'XSignature', 'ContentDigestOptional', 'DPoPOptional']);
    expect((create.post as JsonObject).description).toContain('@method: POST\n@target-uri: /payment-orders\nx-client-id: <value as sent>');
  });
});

function componentOf(name: string): string {
  const [directory, file] = name.includes('/') ? name.split('/') : ['', name];
  const pascal = file.split('-').map((word) => word[0].toUpperCase() + word.slice(1)).join('');
  return (directory === 'control' ? 'Sandbox' : '') + pascal;
}

describe('GET /docs', () => {
  it('is one self-contained page: no script, no external style, font or image, a CSP that forbids them', async () => {
    const instance = await startBank();
    try {
      const answer = await request(instance.app).get('/docs');
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(answer.headers['content-security-policy']).toContain("default-src 'none'");
      expect(answer.text).not.toMatch(/<(script|link|img|iframe|object|embed|video|audio)\b|\ssrc=/i);
      const style = /<style>([\s\S]*?)<\/style>/.exec(answer.text)?.[1] ?? '';
      expect(style).not.toMatch(/@import|url\(|@font-face/i);
      expect(answer.text.match(/href="(?!#)[^"]*"/g)).toEqual(['href="/openapi.json"', 'href="/openapi/connector.json"']);
      for (const operation of [...BANK_OPERATIONS, ...CONTROL_OPERATIONS]) expect(answer.text).toContain(`id="bank-op-${operation.operationId}"`);
      for (const operation of CONNECTOR_OPERATIONS) expect(answer.text).toContain(`id="connector-op-${operation.operationId}"`);
      const anchors = new Set([...answer.text.matchAll(/id="([^"]+)"/g)].map((match) => match[1]));
      const dangling = [...answer.text.matchAll(/href="#([^"]+)"/g)].map((match) => match[1]).filter((target) => !anchors.has(target));
      expect(dangling).toEqual([]);
    } finally {
      instance.close();
    }
  });

  const CHROMIUM = '/usr/bin/chromium';
  (fs.existsSync(CHROMIUM) ? it : it.skip)('renders offline in Chromium: no request but the page itself, no console error, every operation shown', async () => {
    const instance = await startBank();
    const server = http.createServer(instance.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/docs`;
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'] });
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const others: string[] = [];
      const problems: string[] = [];
      await context.route('**/*', async (route) => {
        if (route.request().url() === url) return route.continue();
        others.push(route.request().url());
        return route.abort();
      });
      const page = await context.newPage();
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
      const response = await page.goto(url, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      const seen = (await page.evaluate(`({
        operations: document.querySelectorAll('section.operation').length,
        styled: getComputedStyle(document.querySelector('.method.post')).backgroundColor,
        title: document.title,
      })`)) as { operations: number; styled: string; title: string };
      expect(others).toEqual([]);
      expect(problems).toEqual([]);
      const webhooks = Object.keys(bank.webhooks as JsonObject).length;
      expect(seen.operations).toBe(documentedOperations([...BANK_OPERATIONS, ...CONTROL_OPERATIONS]).length + webhooks + CONNECTOR_OPERATIONS.length);
      expect(seen.styled).toBe('rgb(26, 127, 55)'); // the inline style applies under the page's CSP
      expect(seen.title).toBe('Sandbox Bank API');
      await context.close();
    } finally {
      await browser.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      instance.close();
    }
  });
});

describe('docs/openapi.md', () => {
  it('names the three addresses', () => {
    const page = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'openapi.md'), 'utf8');
    for (const address of ['/openapi.json', '/openapi/connector.json', '/docs']) expect(page).toContain(address);
  });
});
