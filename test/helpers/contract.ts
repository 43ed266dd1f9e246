// Contract checking: every response a test receives from a Bank built by the helpers is judged against the
// Bank's own OpenAPI document (GET /openapi.json, built here from the same generator): the operation must be
// documented, the status one of its answers, the content type one it names, the body valid against that
// answer's schema (ajv), and the required response headers present. A mismatch fails the test that caused it
// (an afterEach hook), so the description cannot drift from the behaviour.
//
// On by default for every Bank of test/helpers/bank.ts (startBank); CONTRACT_CHECK=off switches it off.
import type { IncomingMessage, ServerResponse } from 'node:http';
import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type express from 'express';
import { bankDocument } from '../../src/bank/http/openapi/documents';
import { originForm } from '../../src/wire/http-edge';

type JsonObject = Record<string, unknown>;

/** One answer as the server wrote it. */
export interface ObservedResponse {
  method: string;
  /** The request target as received (the query is ignored). */
  url: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
  /** The body was not complete (a stream closed early, or a very large body). */
  partial: boolean;
  /** The request as received: its headers, and its body when a body parser kept it as bytes (req.body). */
  request?: { headers: Record<string, string | string[] | undefined>; body: Buffer | null };
}

export interface CheckerOptions {
  /** An answer whose description has no content must have no body (true for the Bank's document). */
  emptyWhenUndescribed: boolean;
}

interface Template {
  path: string;
  pattern: RegExp;
  literals: number;
}

const JSON_MEDIA = /^application\/(.+\+)?json$/;
/** Paths the Bank serves that are not part of its API: the dashboard's page and static files (a browser UI). */
const OUTSIDE_THE_API = [/^\/dashboard(\/|$)/];
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const MAX_CAPTURE = 4 * 1024 * 1024;

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function mediaTypeOf(headers: ObservedResponse['headers']): string | null {
  const value = headers['content-type'];
  return typeof value === 'string' ? value.split(';')[0].trim().toLowerCase() : null;
}

/** Judges observed answers against one OpenAPI document. */
export class ContractChecker {
  private readonly ajv: Ajv2020;
  private readonly templates: Template[];
  private readonly validators = new Map<string, ValidateFunction>();
  /** `METHOD /template STATUS` of every answer checked, for coverage. */
  readonly exercised = new Set<string>();

  constructor(private readonly doc: JsonObject, private readonly options: CheckerOptions, private readonly id = 'urn:openapi:document') {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addSchema(doc, id);
    this.templates = Object.keys((doc.paths ?? {}) as JsonObject).map((path) => {
      const source = path.split('/').map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
      return { path, pattern: new RegExp(`^${source}$`), literals: path.split('/').filter((segment) => segment !== '' && !segment.startsWith('{')).length };
    });
  }

  /** The documented path template a request path falls under (the most literal one wins). */
  templateOf(path: string): string | null {
    const matches = this.templates.filter((template) => template.pattern.test(path)).sort((a, b) => b.literals - a.literals);
    return matches[0]?.path ?? null;
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${this.id}#${pointer}` });
      this.validators.set(pointer, validate);
    }
    return validate;
  }

  private resolve(value: unknown): JsonObject {
    let node = value as JsonObject;
    while (node && typeof node.$ref === 'string') {
      node = (node.$ref as string).replace(/^#\//, '').split('/').reduce<unknown>((at, part) => (at as JsonObject)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc) as JsonObject;
    }
    return node;
  }

  private bodyViolations(where: string, pointer: string, observed: ObservedResponse, media: string): string[] {
    if (observed.partial || !JSON_MEDIA.test(media)) return [];
    let body: unknown;
    try {
      body = JSON.parse(observed.body.toString('utf8'));
    } catch {
      return [`${where}: the ${media} body is not JSON: ${observed.body.toString('utf8').slice(0, 200)}`];
    }
    const validate = this.validator(pointer);
    if (validate(body)) return [];
    const errors = (validate.errors ?? []).slice(0, 8).map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
    return [`${where}: the body does not match ${pointer}:\n      ${errors.join('\n      ')}\n      body: ${observed.body.toString('utf8').slice(0, 500)}`];
  }

  /** An undocumented method or path may only be refused: 404 route_not_found, 405, or the admin check's 401. */
  private undocumented(where: string, observed: ObservedResponse): string[] {
    const media = mediaTypeOf(observed.headers);
    if (![401, 404, 405].includes(observed.status)) return [`${where}: not in the document, and answered ${observed.status} (only a 401, 404 or 405 refusal may answer an undocumented operation)`];
    if (media === 'application/problem+json') return this.bodyViolations(where, '/components/schemas/Problem', observed, media);
    if (media === 'application/json') return this.bodyViolations(where, '/components/schemas/OauthError', observed, media);
    return [`${where}: not in the document, and answered ${observed.status} as ${media ?? 'no content type'} (a refusal is problem+json)`];
  }

  /**
   * The request side, for a document whose server is not ours (the Connector's: what the Bank sends it): every
   * required parameter present, every parameter and the body valid against their schemas.
   */
  checkRequest(observed: ObservedResponse): string[] {
    const [path, query = ''] = observed.url.split('?');
    const method = observed.method.toLowerCase();
    const where = `${observed.method} ${path} (request)`;
    const template = this.templateOf(path);
    const operation = template ? (((this.doc.paths as JsonObject)[template] as JsonObject)[method] as JsonObject | undefined) : undefined;
    if (!template || !operation) return [`${where}: not in the document`];
    const violations: string[] = [];
    const headers = observed.request?.headers ?? {};
    const queryValues = new URLSearchParams(query);
    ((operation.parameters ?? []) as unknown[]).forEach((raw, index) => {
      const parameter = this.resolve(raw);
      const name = String(parameter.name);
      const value = parameter.in === 'header' ? headers[name.toLowerCase()] : parameter.in === 'query' ? (queryValues.get(name) ?? undefined) : 'path';
      if (value === undefined) {
        if (parameter.required) violations.push(`${where}: the required ${String(parameter.in)} parameter ${name} is missing`);
        return;
      }
      if (parameter.in === 'path') return;
      const ref = (raw as JsonObject).$ref;
      const schemaPointer = typeof ref === 'string' ? `${ref.slice(1)}/schema` : `/paths/${escapePointer(template)}/${method}/parameters/${index}/schema`;
      const text = Array.isArray(value) ? value.join(', ') : value;
      const typed = /^-?\d+$/.test(text) && ['integer', 'number'].includes(String(this.resolve(parameter.schema).type)) ? Number(text) : text;
      const validate = this.validator(schemaPointer);
      if (!validate(typed)) violations.push(`${where}: ${name} "${text}" does not match its schema: ${this.ajv.errorsText(validate.errors)}`);
    });
    const body = operation.requestBody ? this.resolve(operation.requestBody) : undefined;
    const received = observed.request?.body ?? null;
    if (body) {
      const media = typeof headers['content-type'] === 'string' ? headers['content-type'].split(';')[0].trim().toLowerCase() : null;
      const content = body.content as JsonObject;
      if (!received || received.length === 0) {
        if (body.required) violations.push(`${where}: the required body is missing`);
      } else if (!media || !content[media]) {
        violations.push(`${where}: request content type ${media ?? '(none)'} is not one the document names (${Object.keys(content).join(', ')})`);
      } else {
        const pointer = `/paths/${escapePointer(template)}/${method}/requestBody/content/${escapePointer(media)}/schema`;
        violations.push(...this.bodyViolations(`${where} body`, pointer, { ...observed, body: received, partial: false }, media));
      }
    }
    return violations;
  }

  check(observed: ObservedResponse): string[] {
    const path = observed.url.split('?')[0];
    const method = observed.method.toLowerCase() === 'head' ? 'get' : observed.method.toLowerCase();
    const where = `${observed.method} ${path} -> ${observed.status}`;
    const template = this.templateOf(path);
    const item = template ? ((this.doc.paths as JsonObject)[template] as JsonObject) : undefined;
    const operation = item && METHODS.includes(method) ? (item[method] as JsonObject | undefined) : undefined;
    if (!template || !operation) {
      this.exercised.add(`${observed.method.toUpperCase()} ${template ?? path} undocumented`);
      return this.undocumented(where, observed);
    }
    const responses = operation.responses as JsonObject;
    const key = [String(observed.status), `${String(observed.status)[0]}XX`, 'default'].find((candidate) => responses[candidate]);
    this.exercised.add(`${method.toUpperCase()} ${template} ${observed.status}`);
    if (!key) return [`${where}: ${method.toUpperCase()} ${template} documents no ${observed.status} answer (it documents ${Object.keys(responses).join(', ')})`];
    const response = this.resolve(responses[key]);
    const violations: string[] = [];
    for (const [name, raw] of Object.entries((response.headers ?? {}) as JsonObject)) {
      if (this.resolve(raw).required && observed.headers[name.toLowerCase()] === undefined) violations.push(`${where}: the required response header ${name} is missing`);
    }
    const content = response.content as JsonObject | undefined;
    const hasBody = observed.body.length > 0 && observed.method.toUpperCase() !== 'HEAD';
    if (!content) {
      if (hasBody && this.options.emptyWhenUndescribed) violations.push(`${where}: the answer has no body in the document, but came with ${observed.body.length} bytes: ${observed.body.toString('utf8').slice(0, 200)}`);
      return violations;
    }
    const media = mediaTypeOf(observed.headers);
    if (!media || !content[media]) return [...violations, `${where}: content type ${media ?? '(none)'} is not one the document names (${Object.keys(content).join(', ')})`];
    if (!hasBody) return violations;
    const pointer = `/paths/${escapePointer(template)}/${method}/responses/${key}/content/${escapePointer(media)}/schema`;
    return [...violations, ...this.bodyViolations(where, pointer, observed, media)];
  }
}

/**
 * Calls `onResponse` with every answer `app` writes: app.handle is wrapped (express calls it for every request,
 * on any server or supertest), and the body is captured as it is written.
 */
export function observeApp(app: express.Express, onResponse: (observed: ObservedResponse) => void): void {
  const handle = (app as unknown as { handle: (req: IncomingMessage, res: ServerResponse, next?: unknown) => void }).handle.bind(app);
  (app as unknown as { handle: typeof handle }).handle = (req, res, next) => {
    const method = req.method ?? 'GET';
    // An absolute-form target (RFC 9112 section 3.2.2) is the operation of its path and query.
    const url = originForm(req.url ?? '/');
    const requestHeaders = { ...req.headers };
    const chunks: Buffer[] = [];
    let size = 0;
    let partial = false;
    const capture = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      size += bytes.length;
      if (size > MAX_CAPTURE) partial = true;
      else chunks.push(bytes);
    };
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      capture(chunk, rest[0]);
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      capture(chunk, rest[0]);
      return (end as (...args: unknown[]) => ServerResponse)(chunk, ...rest);
    }) as typeof res.end;
    let reported = false;
    const report = (complete: boolean) => {
      if (reported || !res.headersSent) return;
      reported = true;
      const requestBody = (req as IncomingMessage & { body?: unknown }).body;
      onResponse({
        method, url, status: res.statusCode, headers: res.getHeaders() as ObservedResponse['headers'], body: Buffer.concat(chunks), partial: partial || !complete,
        request: { headers: requestHeaders, body: Buffer.isBuffer(requestBody) ? requestBody : null },
      });
    };
    res.once('finish', () => report(true));
    res.once('close', () => report(false));
    handle(req, res, next);
  };
}

let bankChecker: ContractChecker | null = null;
let violations: string[] = [];

/** The checker of the Bank's document, built once per test file. */
export function bankContract(): ContractChecker {
  bankChecker ??= new ContractChecker(bankDocument({ httpPort: 8080, httpsPort: 8443 }), { emptyWhenUndescribed: true });
  return bankChecker;
}

export const CONTRACT_CHECK_ENABLED = process.env.CONTRACT_CHECK !== 'off';

/** Judges every answer of this Bank's app against /openapi.json; violations fail the current test. */
export function checkContractOf(app: express.Express): void {
  if (!CONTRACT_CHECK_ENABLED) return;
  observeApp(app, (observed) => {
    if (OUTSIDE_THE_API.some((pattern) => pattern.test(observed.url.split('?')[0]))) return;
    try {
      violations.push(...bankContract().check(observed));
    } catch (error) {
      violations.push(`${observed.method} ${observed.url}: the contract check failed: ${(error as Error).stack ?? String(error)}`);
    }
  });
}

/** The violations seen so far, cleared. */
export function takeContractViolations(): string[] {
  const taken = violations;
  violations = [];
  return taken;
}

function failOnViolations(): void {
  const taken = takeContractViolations();
  if (taken.length > 0) {
    throw new Error(`${taken.length} response(s) do not match the Bank's OpenAPI document (GET /openapi.json; src/bank/http/openapi/ and schemas/):\n  ${taken.join('\n  ')}`);
  }
}

// Registered once per test file that loads the helpers: the test that received a wrong answer fails.
if (typeof afterEach === 'function') afterEach(failOnViolations);
if (typeof afterAll === 'function') afterAll(failOnViolations);
