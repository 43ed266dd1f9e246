// The control plane under /sandbox (control-plane.md, src/bank/control/*): one line per operation, naming its
// request and answer schema files of schemas/control/. A new endpoint gets its line here, with its schema files:
//   sandbox('get', '/sandbox/things/{thing_id}', 'getThing', 'One thing', '...', { answers: [ok('control/thing')], problems: ['not_found'] }),
// (test/contract/documents.test.ts fails, naming the file, while a schema of schemas/control/ is used by no line.)
import { ProblemCode } from '../../../wire/problems';
import { AnswerSpec, HttpMethod, OperationSpec, QueryParameter } from './model';
import { TAGS } from './bank-operations';
import { componentRef, SchemaName } from './schema-components';

/** What every /sandbox request can be refused for (control/index.ts, admin.ts, http.ts). */
const COMMON_PROBLEMS: ProblemCode[] = ['auth_missing', 'auth_invalid', 'query_invalid', 'body_too_large', 'unsupported_media_type', 'internal'];
/** And one that reads a JSON body (control/http.ts controlBody). */
const BODY_PROBLEMS: ProblemCode[] = ['body_malformed', 'body_invalid'];

const ok = (schema: SchemaName, description = 'OK.', status = 200): AnswerSpec => ({ status, description, schema });

const text = (name: string, description: string): QueryParameter => ({ name, description, schema: { type: 'string', minLength: 1, maxLength: 200 } });
const instant = (name: string, description: string): QueryParameter => ({ name, description, schema: { type: 'string', format: 'date-time', pattern: 'Z$' } });
const oneOf = (name: string, description: string, values: string[]): QueryParameter => ({ name, description, schema: { enum: values } });
const LIST = [
  { name: 'limit', description: 'Items per page (default 50).', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
  text('cursor', 'The next_cursor of the previous page.'),
];

const CLIENT = { client_id: 'A registered client\'s id.' };
const ORDER = { client_id: 'The client the order belongs to.', reference: 'The order\'s reference.' };
const MESSAGE = { message_id: 'A callback message\'s id.' };
const RUN = { id: 'A conformance run\'s id.' };

interface Options {
  pathParameters?: Record<string, string>;
  query?: QueryParameter[];
  body?: SchemaName;
  answers: AnswerSpec[];
  problems?: ProblemCode[];
  specialErrors?: AnswerSpec[];
  extraHeaders?: QueryParameter[];
  untilSchemasExist?: boolean;
}

/** One control-plane operation: admin token, the common refusals, and for a write with a body its schema. */
function sandbox(method: HttpMethod, path: string, operationId: string, summary: string, description: string, options: Options): OperationSpec {
  const readsBody = options.body !== undefined;
  const problems = [...COMMON_PROBLEMS, ...(readsBody ? BODY_PROBLEMS : []), ...(options.problems ?? [])];
  // A path parameter with a malformed %-escape names nothing: 404 not_found (control/index.ts).
  if (path.includes('{') && !problems.includes('not_found')) problems.push('not_found');
  return {
    method,
    path,
    operationId,
    tag: TAGS.sandbox,
    summary,
    description,
    security: [{ adminToken: [] }],
    pathParameters: options.pathParameters,
    query: options.query,
    extraHeaders: options.extraHeaders,
    body: options.body ? { schema: options.body, required: false, description: 'JSON; an empty body reads as {}.' } : undefined,
    answers: options.answers,
    problems,
    specialErrors: options.specialErrors,
    untilSchemasExist: options.untilSchemasExist,
  };
}

export const CONTROL_OPERATIONS: readonly OperationSpec[] = [
  // Section 2: orders
  sandbox('get', '/sandbox/orders', 'listOrders', 'List orders', 'Orders of every client, newest first, with filters.', {
    query: [...LIST, text('client_id', 'Only this client\'s.'), oneOf('status', 'Only orders in this status.', ['PENDING', 'SUCCESS', 'FAILED']), text('reference', 'Only this reference.'), text('scenario', 'Only orders with this scenario.'), oneOf('source', 'push (created) or pull (pulled).', ['push', 'pull']), instant('since', 'Created at or after.'), instant('until', 'Created before.')],
    answers: [ok('control/order-page')],
  }),
  sandbox('get', '/sandbox/orders/{client_id}/{reference}', 'getOrder', 'One order in full', 'The order, its status history, its callback messages with every attempt, and the journal entries that touched it.', {
    pathParameters: ORDER,
    answers: [ok('control/order-detail')],
    problems: ['not_found'],
  }),
  sandbox('post', '/sandbox/orders/{client_id}/{reference}/outcome', 'forceOutcome', 'Settle an order now', 'Settles a non-final order now, exactly as a scheduled settlement would: same outbox, same callback (none for NO_CALLBACK).', {
    pathParameters: ORDER,
    body: 'control/outcome',
    answers: [ok('control/outcome-applied')],
    problems: ['not_found', 'order_final'],
  }),
  sandbox('get', '/sandbox/orders/{client_id}/{reference}/wait', 'waitForOrder', 'Wait for a status', 'Answers as soon as the order reaches the status (no polling interval), or 408 wait_timeout with the order as it stands.', {
    pathParameters: ORDER,
    query: [oneOf('status', 'The status to wait for (default final: SUCCESS or FAILED).', ['final', 'PENDING', 'SUCCESS', 'FAILED']), { name: 'timeout_s', description: 'Seconds to wait (default 30).', schema: { type: 'integer', minimum: 0, maximum: 300 } }],
    answers: [ok('control/order', 'The order, in the awaited status.')],
    problems: ['not_found'],
    specialErrors: [{ status: 408, description: '`wait_timeout`: the status was not reached in time; the problem carries the order as it stands.', contentType: 'application/problem+json', schema: 'control/wait-timeout' }],
  }),
  // Section 2: callbacks
  sandbox('get', '/sandbox/callbacks', 'listCallbacks', 'List callback messages', 'Callback messages, newest first, with every attempt.', {
    query: [...LIST, oneOf('state', 'Only messages in this state.', ['pending', 'delivered', 'dead']), text('client_id', 'Only this client\'s.')],
    answers: [ok('control/callback-page')],
  }),
  sandbox('get', '/sandbox/callbacks/{message_id}', 'getCallback', 'One callback message', 'The message and every delivery attempt.', {
    pathParameters: MESSAGE,
    answers: [ok('control/callback-message')],
    problems: ['not_found'],
  }),
  sandbox('post', '/sandbox/callbacks/redeliver', 'redeliverCallbacks', 'Redeliver dead messages', 'Sends again every dead message (of one client or all): the same body bytes and idempotency key, with a fresh nonce, timestamp and signature.', {
    body: 'control/redeliver',
    answers: [ok('control/redelivered')],
  }),
  sandbox('post', '/sandbox/callbacks/{message_id}/redeliver', 'redeliverCallback', 'Redeliver one message', 'Sends the message again: the same body bytes and idempotency key, a new attempt record. Never builds a new message.', {
    pathParameters: MESSAGE,
    body: 'control/empty',
    answers: [ok('control/callback-message', 'The message, queued again.')],
    problems: ['not_found'],
  }),
  // Section 2: pulls, pause, reset
  sandbox('post', '/sandbox/clients/{client_id}/poll', 'pollClient', 'Pull from one Connector now', 'One pull cycle for this client\'s Connector; answers what was pulled.', {
    pathParameters: CLIENT,
    body: 'control/empty',
    answers: [ok('control/poll-report')],
    problems: ['not_found', 'run_in_progress'],
  }),
  sandbox('post', '/sandbox/poll', 'pollAll', 'Pull from every Connector now', 'One pull cycle over every Connector the Bank pulls from (a call during a cycle joins it).', {
    answers: [ok('control/poll-reports')],
  }),
  sandbox('post', '/sandbox/clients/{client_id}/pause', 'pauseClient', 'Pause pulls and callbacks', 'Stops pulling and sending callbacks to this client\'s Connector; messages queue meanwhile.', {
    pathParameters: CLIENT,
    body: 'control/empty',
    answers: [ok('control/pause-state')],
    problems: ['not_found'],
  }),
  sandbox('post', '/sandbox/clients/{client_id}/resume', 'resumeClient', 'Resume pulls and callbacks', 'Restarts pulling and callbacks; the queued messages are sent.', {
    pathParameters: CLIENT,
    body: 'control/empty',
    answers: [ok('control/pause-state')],
    problems: ['not_found'],
  }),
  sandbox('post', '/sandbox/reset', 'reset', 'Forget orders and their traces', 'Deletes orders, messages, idempotency records, poll cursors, clock state and fault profiles, of one client or all. Registrations, keys and spent nonces stay.', {
    body: 'control/reset',
    answers: [ok('control/reset-done')],
  }),
  // Section 3: test clocks
  sandbox('post', '/sandbox/clients/{client_id}/clock', 'attachClock', 'Attach a test clock', 'Freezes the client\'s business time at frozen_at (default: now). Security (X-Timestamp, nonces, tokens) stays on wall time.', {
    pathParameters: CLIENT,
    body: 'control/clock-attach',
    answers: [ok('control/clock', 'The clock, attached.', 201)],
    problems: ['not_found', 'clock_backwards'],
  }),
  sandbox('get', '/sandbox/clients/{client_id}/clock', 'getClock', 'The client\'s test clock', 'Its time now.', {
    pathParameters: CLIENT,
    answers: [ok('control/clock')],
    problems: ['not_found'],
  }),
  sandbox('delete', '/sandbox/clients/{client_id}/clock', 'detachClock', 'Detach the test clock', 'The client is back on wall time.', {
    pathParameters: CLIENT,
    answers: [ok('control/clock-detached')],
    problems: ['not_found'],
  }),
  sandbox('post', '/sandbox/clients/{client_id}/clock/advance', 'advanceClock', 'Advance the test clock', 'Moves the clock forward by seconds or to an instant (never back) and fires everything due on the way, in time order, before answering.', {
    pathParameters: CLIENT,
    body: 'control/clock-advance',
    answers: [ok('control/clock-advanced')],
    problems: ['not_found', 'clock_backwards'],
  }),
  // Section 4: the journal
  sandbox('get', '/sandbox/journal', 'listJournal', 'List exchanges', 'Every exchange in and out, newest first, secrets masked.', {
    query: [...LIST, text('client_id', 'Only this client\'s.'), oneOf('direction', 'in (to the Bank) or out (from the Bank).', ['in', 'out']), text('code', 'Only refusals with this problem code.'), text('reference', 'Only exchanges that involved this order reference.'), text('path', 'Only paths starting with this.'), instant('since', 'At or after.')],
    answers: [ok('control/journal-page')],
  }),
  sandbox('get', '/sandbox/journal/{id}', 'getJournalEntry', 'One exchange in full', 'The request and response as they travelled (secrets masked) and a curl command that replays it.', {
    pathParameters: { id: 'A journal entry\'s id.' },
    answers: [ok('control/journal-entry')],
    problems: ['not_found'],
  }),
  sandbox('delete', '/sandbox/journal', 'clearJournal', 'Clear the journal', 'Deletes every entry; ids keep increasing.', {
    answers: [ok('control/journal-deleted')],
  }),
  // Section 6: live events
  sandbox('get', '/sandbox/events', 'streamEvents', 'Live events (Server-Sent Events)', 'A text/event-stream: each message is id, event (its type) and one line of JSON data, a SandboxEvent (in the schemas). Heartbeat comments keep it open; Last-Event-ID (or last_event_id) resumes after an event.', {
    query: [text('client_id', 'Only this client\'s events.'), { name: 'last_event_id', description: 'Resume after this event id (as the Last-Event-ID header).', schema: { type: 'integer', minimum: 0 } }],
    extraHeaders: [{ name: 'Last-Event-ID', description: 'Resume after this event id.', schema: { type: 'string', pattern: '^\\s*\\d{1,15}\\s*$' } }],
    answers: [{ status: 200, description: 'The stream; every data line is a SandboxEvent.', contentType: 'text/event-stream', schema: { type: 'string', description: 'id: <id>\\nevent: <type>\\ndata: <SandboxEvent as one line of JSON>\\n\\n', 'x-event-data': { $ref: componentRef('control/event') } } }],
    problems: ['header_invalid'],
  }),
  // Section 1: clients at run time
  sandbox('post', '/sandbox/clients', 'registerClient', 'Register a client', 'Registers a client at run time and answers, once, everything needed to start: secret, signing key (unless jwks or jwks_uri was given), certificate from the dev CA, API key, examples.', {
    body: 'control/client-create',
    answers: [{ status: 201, description: 'Registered. Shown once: store the secrets now.', schema: 'control/client-created', headers: ['Location', 'CacheControl'] }],
    problems: ['client_exists'],
  }),
  sandbox('get', '/sandbox/clients', 'listClients', 'List clients', 'The clients in force, newest first. Never a secret.', {
    query: LIST,
    answers: [ok('control/client-list')],
  }),
  sandbox('get', '/sandbox/clients/{client_id}', 'getClient', 'One client', 'What is in force for the client. Never a secret.', {
    pathParameters: CLIENT,
    answers: [ok('control/client')],
    problems: ['not_found'],
  }),
  sandbox('patch', '/sandbox/clients/{client_id}', 'changeClient', 'Change a client', 'Changes the client at once (registry, pull and callbacks); connector is an RFC 7396 merge patch.', {
    pathParameters: CLIENT,
    body: 'control/client-patch',
    answers: [ok('control/client')],
    problems: ['not_found'],
  }),
  sandbox('delete', '/sandbox/clients/{client_id}', 'deleteClient', 'Delete a client', 'Removes the registration and its Connector; its orders stay readable until a reset.', {
    pathParameters: CLIENT,
    answers: [ok('control/client-deleted')],
    problems: ['not_found'],
  }),
  // Fault profiles (conformance.md section 4)
  sandbox('put', '/sandbox/clients/{client_id}/faults', 'setFaultProfile', 'Set a fault profile', 'Replaces the client\'s fault profile: the misbehaviours the Bank injects into the callbacks and pulls it sends this client and the status answers it gives it, seeded and reproducible. Every injected fault is marked in the journal.', {
    pathParameters: CLIENT,
    body: 'control/faults',
    answers: [ok('control/fault-profile')],
    problems: ['not_found'],
  }),
  sandbox('get', '/sandbox/clients/{client_id}/faults', 'getFaultProfile', 'The fault profile', 'The profile in force (all zeros and active false without one).', {
    pathParameters: CLIENT,
    answers: [ok('control/fault-profile')],
    problems: ['not_found'],
  }),
  sandbox('delete', '/sandbox/clients/{client_id}/faults', 'clearFaultProfile', 'Remove the fault profile', 'Nothing is injected any more.', {
    pathParameters: CLIENT,
    answers: [{ status: 204, description: 'Removed (or there was none).' }],
    problems: ['not_found'],
  }),
  // Conformance runs (conformance.md sections 1 and 2)
  sandbox('post', '/sandbox/conformance-runs', 'startConformanceRun', 'Start a conformance run', 'Plays every case (or those asked) against the client\'s registered Connector and judges it; answers at once, with the orders the Connector is asked to push during the window (client.* cases).', {
    body: 'control/conformance-run-start',
    answers: [{ status: 202, description: 'Started; follow Location.', schema: 'control/conformance-run-summary', headers: ['Location'] }],
    problems: ['not_found', 'run_in_progress'],
    untilSchemasExist: true,
  }),
  sandbox('get', '/sandbox/conformance-runs', 'listConformanceRuns', 'List conformance runs', 'Runs newest first, without their results.', {
    query: [...LIST, text('client_id', 'Only this client\'s runs.')],
    answers: [ok('control/conformance-run-page')],
    untilSchemasExist: true,
  }),
  sandbox('get', '/sandbox/conformance-runs/{id}', 'getConformanceRun', 'One conformance run', 'Progress and the results of the cases finished so far, each with its clause, expected and seen, and its exchanges.', {
    pathParameters: RUN,
    answers: [ok('control/conformance-run')],
    problems: ['not_found'],
    untilSchemasExist: true,
  }),
  sandbox('get', '/sandbox/conformance-runs/{id}/junit.xml', 'getConformanceJunit', 'The run as JUnit XML', 'One testsuite per group, one testcase per case (valid against junit-10.xsd), for a CI test report.', {
    pathParameters: RUN,
    answers: [{ status: 200, description: 'The JUnit XML report.', contentType: 'application/xml', schema: { type: 'string' } }],
    problems: ['not_found'],
    untilSchemasExist: true,
  }),
  sandbox('get', '/sandbox/conformance-runs/{id}/report.html', 'getConformanceReport', 'The run as an HTML report', 'One self-contained page: summary, then every case with its verdict, clause and exchanges.', {
    pathParameters: RUN,
    answers: [{ status: 200, description: 'The HTML report.', contentType: 'text/html', schema: { type: 'string' } }],
    problems: ['not_found'],
    untilSchemasExist: true,
  }),
  sandbox('delete', '/sandbox/conformance-runs/{id}', 'deleteConformanceRun', 'Delete a conformance run', 'The run, and the orders it asked the Connector to push.', {
    pathParameters: RUN,
    answers: [ok('control/conformance-run-deleted')],
    problems: ['not_found', 'run_in_progress'],
    untilSchemasExist: true,
  }),
];
