// Turns a routes table (model.ts) into OpenAPI 3.1 path items: parameters from the profile's headers, bodies and
// answers from the schema files (with their examples), refusals from the problem codes. The components every
// document shares (schemas, parameters, headers) are gathered here too.
import { headerParameter, headerParameterComponents, RESPONSE_HEADER_NAMES, RESPONSE_HEADERS, responseHeader, signatureBaseDescription, signedHeaderParameters } from './headers';
import type { ProblemCode } from '../../../wire/problems';
import { AnswerSpec, BodySpec, OperationSpec } from './model';
import { oauthErrorResponses, parserRefusalResponses, problemResponses } from './problem-answers';
import { componentRef, JsonObject, SchemaName, schemaComponents, schemaExamples, schemaFileExists } from './schema-components';

const PATH_PARAMETER = /\{([^}]+)\}/g;

/** A `#/components/schemas/...` reference, or the inline schema itself. */
function schemaOf(schema: SchemaName | JsonObject): JsonObject {
  return typeof schema === 'string' ? { $ref: componentRef(schema) } : schema;
}

/** The schema files an operation names for its bodies (inline schemas reach theirs through $refs only). */
function namedSchemas(operation: OperationSpec): SchemaName[] {
  const names: SchemaName[] = [];
  if (operation.body) names.push(operation.body.schema);
  for (const answer of [...operation.answers, ...(operation.specialErrors ?? [])]) if (typeof answer.schema === 'string') names.push(answer.schema);
  return names;
}

/** Media type examples from a schema file's `examples`, named example1, example2 ... */
function mediaExamples(schema: SchemaName): JsonObject | undefined {
  const examples = schemaExamples(schema);
  if (examples.length === 0) return undefined;
  return Object.fromEntries(examples.map((value, index) => [`example${index + 1}`, { value }]));
}

function mediaType(schema: SchemaName | JsonObject): JsonObject {
  const examples = typeof schema === 'string' ? mediaExamples(schema) : undefined;
  return { schema: schemaOf(schema), ...(examples ? { examples } : {}) };
}

function requestBody(body: BodySpec): JsonObject {
  return {
    required: body.required ?? true,
    ...(body.description ? { description: body.description } : {}),
    content: { [body.contentType ?? 'application/json']: mediaType(body.schema) },
  };
}

/** How a document describes answers: the Bank puts X-Request-Id on every one, a Connector need not. */
export interface DocumentStyle {
  requestIdOnEveryAnswer: boolean;
  /**
   * Every operation may answer 400 header_invalid to a request HTTP/1.1 cannot take: no Host, or one node's parser
   * refuses (the Bank's http/app.ts and server.ts), and 408 or 431 when the parser times out or the head is too
   * large. The Bank's document says so on each operation.
   */
  headerRefusalsOnEveryOperation: boolean;
}

const HEADER_REFUSAL: readonly ProblemCode[] = ['header_invalid'];

function answer(spec: AnswerSpec, style: DocumentStyle): JsonObject {
  const headers: JsonObject = style.requestIdOnEveryAnswer ? { 'X-Request-Id': responseHeader('XRequestId') } : {};
  for (const name of spec.headers ?? []) headers[RESPONSE_HEADER_NAMES[name]] = responseHeader(name);
  const response: JsonObject = { description: spec.description, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
  if (spec.schema) response.content = { [spec.contentType ?? 'application/json']: mediaType(spec.schema) };
  return response;
}

function parameters(operation: OperationSpec): JsonObject[] {
  const list: JsonObject[] = [];
  for (const match of operation.path.matchAll(PATH_PARAMETER)) {
    const name = match[1];
    const description = operation.pathParameters?.[name];
    if (!description) throw new Error(`${operation.operationId}: describe the path parameter {${name}}`);
    list.push({ name, in: 'path', required: true, description, schema: { type: 'string', minLength: 1 } });
  }
  const signed = operation.signed ? signedHeaderParameters(operation.signed) : [];
  for (const header of [...signed, ...(operation.headers ?? [])]) list.push(headerParameter(header));
  for (const header of operation.optionalHeaders ?? []) list.push(headerParameter(header, false));
  for (const header of operation.extraHeaders ?? []) list.push({ name: header.name, in: 'header', required: header.required ?? false, description: header.description, schema: header.schema });
  for (const query of operation.query ?? []) list.push({ name: query.name, in: 'query', required: query.required ?? false, description: query.description, schema: query.schema });
  return list;
}

function description(operation: OperationSpec): string {
  if (!operation.signed) return operation.description;
  return `${operation.description}\n\n${signatureBaseDescription(operation.signed, operation.method, operation.path)}`;
}

export function operationObject(operation: OperationSpec, style: DocumentStyle): JsonObject {
  const responses: Record<string, JsonObject> = {};
  for (const spec of operation.answers) responses[String(spec.status)] = answer(spec, style);
  const problems = operation.problems ?? [];
  const refusals = style.headerRefusalsOnEveryOperation && !operation.oauthErrors && !problems.includes('header_invalid') ? HEADER_REFUSAL : [];
  Object.assign(responses, problemResponses([...problems, ...refusals], operation.path));
  if (style.headerRefusalsOnEveryOperation && !operation.oauthErrors) {
    // An operation's own answer of that status (the wait's 408 wait_timeout) keeps its place.
    for (const [status, response] of Object.entries(parserRefusalResponses(operation.path))) responses[status] ??= response;
  }
  Object.assign(responses, oauthErrorResponses(operation.oauthErrors ?? []));
  for (const spec of operation.specialErrors ?? []) responses[String(spec.status)] = answer(spec, style);
  const sorted = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    description: description(operation),
    security: operation.security,
    parameters: parameters(operation),
    ...(operation.body ? { requestBody: requestBody(operation.body) } : {}),
    responses: sorted,
    ...(operation.signed ? { 'x-signed-flow': operation.signed } : {}),
  };
}

/** The operations of a table that the document shows: all, but those still waiting for their schema files. */
export function documentedOperations(operations: readonly OperationSpec[]): OperationSpec[] {
  return operations.filter((operation) => !operation.untilSchemasExist || namedSchemas(operation).every((name) => schemaFileExists(name)));
}

/** The `paths` (or `webhooks`) object of a table, operations grouped by path in table order. */
export function pathItems(operations: readonly OperationSpec[], style: DocumentStyle, key: (operation: OperationSpec) => string = (operation) => operation.path): Record<string, JsonObject> {
  const items: Record<string, JsonObject> = {};
  for (const operation of operations) {
    const item = (items[key(operation)] ??= {});
    if (item[operation.method]) throw new Error(`${operation.method.toUpperCase()} ${operation.path} is in the table twice`);
    item[operation.method] = operationObject(operation, style);
  }
  return items;
}

/** The components a set of tables needs: every schema they name (and, with includeAll, every schema file). */
export function components(operations: readonly OperationSpec[], extraSchemas: SchemaName[], includeAll: boolean, securitySchemes: Record<string, JsonObject>): JsonObject {
  const names = new Set<SchemaName>([...extraSchemas, ...operations.flatMap(namedSchemas)]);
  return {
    schemas: schemaComponents(names, includeAll),
    parameters: headerParameterComponents(),
    headers: RESPONSE_HEADERS,
    securitySchemes,
  };
}
