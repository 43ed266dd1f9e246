// What the routes tables say about one operation, before it becomes OpenAPI: its path and method, the headers
// of the profile it needs, the schema files of its bodies (names under schemas/), its answers and the problem
// codes it can refuse with. The builder (document.ts) turns a table into a document.
import { ProblemCode } from '../../../wire/problems';
import { SignedFlow } from '../../../wire/signature-base';
import { RESPONSE_HEADERS, RequestHeader } from './headers';
import { JsonObject, SchemaName } from './schema-components';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One alternative of an operation's security: scheme names that must all hold. */
export type SecurityRequirement = Record<string, string[]>;

export interface QueryParameter {
  name: string;
  description: string;
  schema: JsonObject;
  required?: boolean;
}

export interface BodySpec {
  /** A schema file under schemas/ (its `examples` become the media type's examples). */
  schema: SchemaName;
  contentType?: string;
  required?: boolean;
  description?: string;
}

export interface AnswerSpec {
  /** A status, or a class of them ('4XX'). */
  status: number | '4XX' | '5XX';
  description: string;
  /** A schema file under schemas/, or an inline schema (a composition of components); absent: no body. */
  schema?: SchemaName | JsonObject;
  contentType?: string;
  headers?: (keyof typeof RESPONSE_HEADERS)[];
}

/** An RFC 6749 §5.2 error of the token endpoint: its `error`, HTTP status and the profile codes it reports. */
export interface OAuthErrorSpec {
  status: number;
  errors: string[];
  codes: ProblemCode[];
}

export interface OperationSpec {
  method: HttpMethod;
  /** OpenAPI path template, e.g. /payment-orders/{orderId}/status. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  /** [] for a public operation. */
  security: SecurityRequirement[];
  /** The signed flow: its headers (in signature-base order) become required parameters, its base the description. */
  signed?: SignedFlow;
  headers?: RequestHeader[];
  optionalHeaders?: RequestHeader[];
  /** Extra header parameters written out (for example Last-Event-ID, If-None-Match). */
  extraHeaders?: QueryParameter[];
  /** Descriptions of the path template's parameters (every one must be described). */
  pathParameters?: Record<string, string>;
  query?: QueryParameter[];
  body?: BodySpec;
  answers: AnswerSpec[];
  /** problem+json refusals, grouped by status in the document. */
  problems?: ProblemCode[];
  /** The token endpoint's RFC 6749 errors, instead of problems. */
  oauthErrors?: OAuthErrorSpec[];
  /** Answers that need their own schema (wait_timeout's 408, readyz's 503). */
  specialErrors?: AnswerSpec[];
  /** Left out of the document while one of its schema files does not exist yet (an API still being built). */
  untilSchemasExist?: boolean;
}
