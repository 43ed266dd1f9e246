// npm run demo: the Bank and the reference Connector as child processes, with mTLS on the dev PKI. Drives every
// flow and scenario kind once, prints a timeline, and reports each expected outcome.
import fs from 'node:fs';
import https from 'node:https';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { PaymentOrder } from '../wire/payment-order';
import { decideScenario, planFor } from '../bank/domain/scenarios';
import { pkiFiles } from '../bank/security/pki';
import { Child, freePort, startChild, stopChild } from './processes';
import { DemoPush, demoOrder, demoPushes } from './scenarios';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface DemoResult {
  ok: boolean;
  checks: Check[];
  timeline: string[];
}

interface ConnectorState {
  orders: { reference: string; status: string; source: string }[];
  status_log: { reference: string; status: string; via: string; at: number | string }[];
  alerts: { reference: string; message: string }[];
  poll_schedule: { reference: string; attempts: number; stopped_reason: string | null }[];
}

/** GET /sandbox/orders/{client_id}/{reference} (control-plane.md section 2). */
interface BankOrderView {
  order: { reference: string; status: string };
  messages: { idempotency_key: string; kind: string; state: string; attempts: { at: string; http_status: number | null; error: string | null }[] }[];
}

const ADMIN_TOKEN = `demo-admin-${randomBytes(8).toString('hex')}`;
const PULL_TOKEN = 'demo-pull-token';
const ROOT = path.resolve(__dirname, '..', '..');

function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string; tls?: https.RequestOptions } = {}): Promise<{ status: number; json: unknown }> {
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(target, { method: options.method ?? 'GET', headers: options.headers, ...options.tls }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, json: text ? (JSON.parse(text) as unknown) : null });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function expectedFixtureFinal(order: PaymentOrder): string {
  const plan = planFor(decideScenario(order, []).scenario);
  if (plan.initial !== 'PENDING') return plan.initial.status;
  return plan.deferred?.final.status ?? 'PENDING';
}

export interface DemoOptions {
  dataDir?: string;
  timeoutMs?: number;
  log?: (line: string) => void;
}

export async function runDemo(options: DemoOptions = {}): Promise<DemoResult> {
  const log = options.log ?? (() => undefined);
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-bank-demo-'));
  const files = pkiFiles(path.join(dataDir, 'bank', 'pki'));
  const [bankHttp, bankHttps, connectorPort] = [await freePort(), await freePort(), await freePort()];
  const children: Child[] = [];
  const started = Date.now();
  try {
    log(`data in ${dataDir}`);
    const bank = await startChild('bank/main.js', {
      DATA_DIR: path.join(dataDir, 'bank'), PORT: String(bankHttp), HTTPS_PORT: String(bankHttps), HOST: '127.0.0.1',
      CONNECTOR_URL: `https://localhost:${connectorPort}`, CONNECTOR_TOKEN: PULL_TOKEN, POLL_CRON: '*/2 * * * * *',
      CALLBACK_MODE: 'auto', AUTO_BATCH_THRESHOLD: '3', BATCH_WINDOW_MS: '300', RETRY_SCHEDULE: '1,2', ADMIN_TOKEN,
      CLIENTS_FILE: path.join(ROOT, 'fixtures/clients.json'), LOG_LEVEL: 'info',
    }, 'sandbox bank listening');
    children.push(bank);
    log(`bank: http://127.0.0.1:${bankHttp} and https://localhost:${bankHttps} (mTLS), PKI in ${files.dir}`);
    // The PENDING:2 and ASYNC:2 pushes must end by callback, between the Connector's first reverse poll and its
    // second: polls at +0.8 s and +4.8 s leave a busy Bank 1.2 s before the settlement at +2 s and 2.7 s after it
    // (at 1 s and 3 s, a busy second either side gave the final to reverse polling), and NO_CALLBACK its two polls.
    const connector = await startChild('connector/main.js', {
      CONNECTOR_PORT: String(connectorPort), CONNECTOR_HOST: '127.0.0.1', CONNECTOR_DATA_DIR: path.join(dataDir, 'connector'),
      BANK_URL: `https://localhost:${bankHttps}`, BANK_STATUS_URL: `https://localhost:${bankHttps}`, PULL_TOKEN,
      CONNECTOR_TLS_CERT: files.clientCert('demo-connector'), CONNECTOR_TLS_KEY: files.clientKey('demo-connector'), CONNECTOR_TLS_CA: files.caCert,
      POLL_INITIAL_MS: '800', POLL_FACTOR: '5', POLL_MAX_MS: '4000', CONNECTOR_LOG_LEVEL: 'info',
      CREDENTIALS_FILE: path.join(ROOT, 'fixtures/demo-connector/credentials.json'), ORDERS_FIXTURE: path.join(ROOT, 'fixtures/connector-orders.json'),
    }, 'reference connector listening');
    children.push(connector);
    log(`reference connector: https://localhost:${connectorPort} (mTLS), pulled by the Bank every 2 s`);

    const tls = { ca: fs.readFileSync(files.caCert), cert: fs.readFileSync(files.clientCert('demo-connector')), key: fs.readFileSync(files.clientKey('demo-connector')) };
    const connectorUrl = `https://localhost:${connectorPort}`;
    const run = randomBytes(3).toString('hex');
    const pushes = demoPushes(run);
    const answers = new Map<string, number | null>();
    for (const push of pushes) {
      const answer = await request(`${connectorUrl}/orders`, { method: 'POST', body: JSON.stringify(demoOrder(push)), headers: { 'content-type': 'application/json' }, tls });
      const bankStatus = (answer.json as { bank_http_status: number | null }).bank_http_status;
      answers.set(push.reference, bankStatus);
      log(`pushed ${push.reference} (${push.flow}): bank answered ${bankStatus}`);
    }
    const fixture = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures/connector-orders.json'), 'utf8')) as PaymentOrder[];
    const observe = async () => {
      const state = (await request(`${connectorUrl}/state`, { tls })).json as ConnectorState;
      const views = new Map<string, BankOrderView>();
      for (const reference of [...pushes.map((push) => push.reference), ...fixture.map((order) => order.reference)]) {
        const view = await request(`http://127.0.0.1:${bankHttp}/sandbox/orders/demo-connector/${encodeURIComponent(reference)}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        if (view.status === 200) views.set(reference, view.json as BankOrderView);
      }
      return { state, views };
    };
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    let observed = await observe();
    let checks = evaluate(pushes, answers, fixture, observed.state, observed.views);
    while (checks.some((check) => !check.ok) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      observed = await observe();
      checks = evaluate(pushes, answers, fixture, observed.state, observed.views);
    }
    return { ok: checks.every((check) => check.ok), checks, timeline: timeline(started, pushes, observed.state, observed.views) };
  } finally {
    for (const child of children.reverse()) await stopChild(child);
  }
}

function finalVia(state: ConnectorState, reference: string): { status: string; via: string } | undefined {
  const entries = state.status_log.filter((entry) => entry.reference === reference);
  return entries[entries.length - 1];
}

function evaluate(pushes: DemoPush[], answers: Map<string, number | null>, fixture: PaymentOrder[], state: ConnectorState, views: Map<string, BankOrderView>): Check[] {
  const checks: Check[] = [];
  const statusOf = (reference: string) => state.orders.find((order) => order.reference === reference)?.status ?? 'unknown';
  for (const push of pushes) {
    const last = finalVia(state, push.reference);
    const viaOk = push.via === 'callback' ? ['callback', 'batch'].includes(last?.via ?? '') : last?.via === push.via;
    let ok = answers.get(push.reference) === push.http && statusOf(push.reference) === push.final && viaOk;
    let detail = `create ${answers.get(push.reference)}, connector ${statusOf(push.reference)} via ${last?.via ?? '-'}`;
    const view = views.get(push.reference);
    if (push.deliveries) {
      const finals = (view?.messages ?? []).filter((message) => message.idempotency_key.endsWith(`-${push.final}`));
      const delivered = finals.flatMap((message) => message.attempts.filter((attempt) => attempt.http_status === 200));
      ok &&= finals.length === 1 && delivered.length >= push.deliveries;
      detail += `; final delivered ${delivered.length}x under ${finals.length} key(s), applied once`;
    }
    if (push.via === 'reverse-poll') {
      const schedule = state.poll_schedule.find((entry) => entry.reference === push.reference);
      ok &&= (schedule?.attempts ?? 0) >= 2 && (view?.messages.length ?? 0) === 0;
      detail += `; ${schedule?.attempts ?? 0} reverse polls, ${view?.messages.length ?? 0} callbacks`;
    }
    checks.push({ name: `${push.flow} (${push.reference})`, ok, detail });
  }
  const pulled = fixture.map((order) => ({ order, expected: expectedFixtureFinal(order), actual: statusOf(order.reference), via: finalVia(state, order.reference)?.via }));
  const wrong = pulled.filter((entry) => entry.actual !== entry.expected);
  const viaBatch = pulled.filter((entry) => entry.via === 'batch').length;
  checks.push({
    name: `pull: ${fixture.length} fixture orders pulled, settled and called back`,
    ok: wrong.length === 0 && viaBatch > 0,
    detail: wrong.length ? `not yet: ${wrong.map((entry) => `${entry.order.reference} ${entry.actual}≠${entry.expected}`).join(', ')}` : `all final as the scenarios say; ${viaBatch} reported by batch callback`,
  });
  const attempts = [...views.values()].flatMap((view) => view.messages.flatMap((message) => message.attempts));
  const refused = attempts.filter((attempt) => attempt.http_status === 401 || attempt.http_status === 403);
  checks.push({
    name: 'every callback JWS verified by the Connector against the Bank JWKS (mTLS both ways)',
    ok: attempts.length > 0 && refused.length === 0,
    detail: `${attempts.length} delivery attempts, ${refused.length} refused for signature or certificate`,
  });
  checks.push({ name: 'no alerts at the Connector', ok: state.alerts.length === 0, detail: state.alerts.map((alert) => `${alert.reference}: ${alert.message}`).join('; ') || 'none' });
  return checks;
}

function timeline(started: number, pushes: DemoPush[], state: ConnectorState, views: Map<string, BankOrderView>): string[] {
  const flowOf = new Map(pushes.map((push) => [push.reference, push.flow]));
  const rows: { at: number; text: string }[] = [];
  for (const entry of state.status_log) {
    const at = typeof entry.at === 'number' ? entry.at : Date.parse(entry.at);
    rows.push({ at, text: `${entry.reference.padEnd(28)} ${(flowOf.get(entry.reference) ?? 'pull').padEnd(40)} connector: ${entry.status.padEnd(8)} via ${entry.via}` });
  }
  for (const [reference, view] of views) {
    for (const message of view.messages) {
      for (const attempt of message.attempts) {
        const verdict = attempt.http_status === 200 ? 'JWS verified, accepted' : `refused: ${attempt.error ?? attempt.http_status}`;
        rows.push({ at: Date.parse(attempt.at), text: `${reference.padEnd(28)} ${(flowOf.get(reference) ?? 'pull').padEnd(40)} bank: ${message.kind} callback ${message.idempotency_key.slice(0, 36)} -> ${attempt.http_status ?? '-'} (${verdict})` });
      }
    }
  }
  return rows.sort((a, b) => a.at - b.at).map((row) => `+${((row.at - started) / 1000).toFixed(2).padStart(6)}s  ${row.text}`);
}
