// The Bank's process (started by main.ts, from the bundle or from dist/): reads the configuration, prepares TLS (dev
// PKI), starts the HTTP and HTTPS listeners and the outgoing side, and stops cleanly on SIGTERM/SIGINT.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import type { Logger } from 'winston';
import { createBank, loadClientDefinitions, lockBankDataDir } from './bank';
import { BankConfig, loadConfig } from './config';
import { createLogger } from '../wire/logger';
import type { PkiFiles } from './security/pki';
import { prepareTls, TlsMaterial } from './tls';
import { ProblemError } from '../wire/problems';
import { clientErrorProblem, clientErrorState, rawProblemResponse } from '../wire/client-errors';
import { Running, runMain } from '../wire/run-main';
import { checkPortFree, listen, ListenSettings } from '../wire/http-edge';
import { launchOf } from '../wire/fast-start';
import { startIdleCollection } from '../wire/idle-collection';
import { within } from '../wire/within';
import { drainable } from '../wire/drain';
import { curlCertArgument, shellQuote } from '../wire/shell';

/** Logs and counts a refusal written outside the app (no request reached it), as the app does its own. */
type RefusalRecorder = (problem: ProblemError, requestId: string, extra?: Record<string, unknown>) => void;

function refusalRecorder(logger: Logger, countUnparsed: (code: string, status: number) => void): RefusalRecorder {
  return (problem, requestId, extra = {}) => {
    logger.info('request rejected', { request_id: requestId, code: problem.code, detail: problem.detail, ...extra });
    countUnparsed(problem.code, problem.status);
  };
}

/**
 * Requests node's own HTTP parser refuses (two Content-Lengths, oversized headers...) never reach the app, and node's
 * own answer is a bare status line: answered here with the problem body profile section 5 asks of every 4xx. As in
 * node's own handler (lib/_http_server.js, socketOnError), nothing is written over a response already on its way
 * (wire/client-errors.ts, clientErrorState): the socket is destroyed instead.
 */
function answerParserErrors(server: http.Server, recordRefusal: RefusalRecorder): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const state = clientErrorState(socket);
    if (error.code === 'HPE_CLOSED_CONNECTION') {
      // Bytes after a request with Connection: close, which RFC 9112 section 9.6 forbids processing: the responses
      // still pending go out, and the last one closes the connection. With none pending, it is closing already.
      if (state !== 'busy') socket.destroy();
      return;
    }
    // TLS errors (a renegotiation attack) and the socket's own get no answer, as nothing would read one.
    const problem = state === 'busy' ? null : clientErrorProblem(error.code, state === 'body');
    if (!problem) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    // Logged and counted as the app does its own refusals, when no request was read. One whose body failed to parse
    // (a bad chunk) already reached the app, which logs and counts it as given up (499) when its socket closes.
    if (state === 'fresh') recordRefusal(problem, requestId);
    socket.end(rawProblemResponse(problem, requestId));
  });
  // CONNECT asks for a tunnel, which the Bank (no proxy) does not open: without this listener node closes the
  // connection with no answer. 405 with an empty Allow (RFC 9110 section 10.2.1: the authority allows no method here).
  server.on('connect', (req: http.IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    const requestId = randomUUID();
    const problem = new ProblemError('method_not_allowed', 'the Bank is not a proxy: CONNECT opens no tunnel here');
    recordRefusal(problem, requestId, { method: req.method });
    // Node hands a CONNECT's socket over half-open and without its time-outs: closed whole once the answer is out,
    // or it would stay (an fd, and a graceful stop waiting SHUTDOWN_TIMEOUT_MS for it) until the client hangs up.
    socket.end(rawProblemResponse(problem, requestId, '', { Allow: '' }), () => socket.destroy());
  });
}

/**
 * Plain HTTP sent to the HTTPS (mTLS) port, a common slip (`curl http://localhost:8443`): OpenSSL refuses it as
 * ERR_SSL_HTTP_REQUEST and node closes the connection without a byte. Answered instead, in plain HTTP on the TCP
 * socket under the TLS one (`_parent`, undocumented but stable since node 0.x), with what the port needs.
 */
function answerPlainHttpOnTls(server: https.Server, recordRefusal: RefusalRecorder, plainUrl: () => string): void {
  server.on('tlsClientError', (error: NodeJS.ErrnoException, tlsSocket: { _parent?: Duplex | null; destroy(): void }) => {
    const raw = tlsSocket._parent;
    if (error.code !== 'ERR_SSL_HTTP_REQUEST' || !raw?.writable) return void tlsSocket.destroy();
    const requestId = randomUUID();
    const problem = new ProblemError('mtls_required', `this is the Bank's HTTPS (mutual TLS) listener and the request came in plain HTTP: use https:// with your client certificate, or the plain-HTTP listener at ${plainUrl()}`);
    recordRefusal(problem, requestId);
    raw.on('error', () => raw.destroy());
    raw.end(rawProblemResponse(problem, requestId));
  });
}

/** The reverse-polling curl for one registered client (the demo fixture signs with its own credentials file). */
function reversePollingCurl(files: PkiFiles, clientId: string, httpsPort: number): string {
  const credentials = clientId === 'demo-connector' ? '' : `CREDENTIALS_FILE=<${clientId} credentials.json> `;
  return (
    `${credentials}node scripts/signed-headers.js GET /payment-orders/ORDER_REF/status | curl -sS -H @- ` +
    `--cacert ${shellQuote(files.caCert)} --cert ${curlCertArgument(files.clientCert(clientId))} --key ${shellQuote(files.clientKey(clientId))} ` +
    `https://localhost:${httpsPort}/payment-orders/ORDER_REF/status`
  );
}

/** Names the files of the clients actually registered, and a curl for one of them (demo-connector when present). */
function announcePki(logger: Logger, tls: TlsMaterial, httpsPort: number, clientIds: readonly string[]): void {
  if (!tls.pki) return;
  const files = tls.pki;
  const example = clientIds.includes('demo-connector') ? 'demo-connector' : clientIds[0];
  const curl = example === undefined ? null : reversePollingCurl(files, example, httpsPort);
  logger.info('dev PKI ready', {
    pki_dir: files.dir,
    created: tls.created,
    ca: files.caCert,
    client_certs: Object.fromEntries(clientIds.map((id) => [id, { cert: files.clientCert(id), key: files.clientKey(id) }])),
    reverse_polling_curl: curl,
  });
  if (process.stderr.isTTY && curl) {
    process.stderr.write(
      `\nDev PKI in ${files.dir}${tls.created.length ? ` (created ${tls.created.length} certificates)` : ''}\n` +
        `Reverse polling over mTLS with ${example}'s certificate:\n  ${curl}\n` +
        `Without --cert/--key the same call answers 403 mtls_required.\n\n`,
    );
  }
}

/** The settings that name each listener's address, for its refusals (checked at start, then bound). */
const HTTP_SETTINGS: ListenSettings = { port: 'PORT', host: 'HOST' };
const HTTPS_SETTINGS: ListenSettings = { port: 'HTTPS_PORT', host: 'HOST' };

async function start(config: BankConfig): Promise<Running> {
  const logger = createLogger(config.logLevel, false, { format: config.logFormat });
  // Held before the dev PKI: a second Bank on this DATA_DIR must not write its files either.
  const dataDirLock = lockBankDataDir(config.dataDir, logger);
  // Both ports are checked before the dev PKI and the store are touched: a start refused its port changes neither
  // (an older build still running on them, which takes no lock, keeps its schema and its certificates).
  await checkPortFree(config.port, config.host, HTTP_SETTINGS);
  await checkPortFree(config.httpsPort, config.host, HTTPS_SETTINGS);
  const clients = loadClientDefinitions(config);
  const clientIds = clients.map((client) => client.client_id);
  const tls = await prepareTls(config, clientIds, ({ file, reason }) => {
    // A broken or missing key is replaced with its certificate; any other file is a certificate reissued for its key.
    logger.warn(file.endsWith('.key') ? 'dev PKI: replaced a key and its certificate' : 'dev PKI: reissued a certificate for its existing key', { file, reason });
  });
  const bank = await createBank(config, { logger, connectorTls: tls.connector, clients, dataDirLock });
  // A Host-less HTTP/1.1 request reaches the app, which refuses it with a problem body (http/app.ts, missingHost).
  const listener = bank.app;
  const httpServer = http.createServer({ requireHostHeader: false }, listener);
  // rejectUnauthorized: false lets a request without a valid certificate reach the app, which answers it
  // with a problem body (403 mtls_required) instead of a bare TLS handshake failure.
  const httpsServer = https.createServer({ ...tls.server, requestCert: true, rejectUnauthorized: false, requireHostHeader: false }, listener);
  const servers = [httpServer, httpsServer];
  const stops = servers.map(drainable);
  const recordRefusal = refusalRecorder(logger, bank.metrics.countUnparsed);
  for (const server of servers) {
    server.keepAliveTimeout = 65_000;
    answerParserErrors(server, recordRefusal);
  }
  let port = config.port;
  answerPlainHttpOnTls(httpsServer, recordRefusal, () => `http://localhost:${port}`);
  port = await listen(httpServer, config.port, config.host, HTTP_SETTINGS);
  const httpsPort = await listen(httpsServer, config.httpsPort, config.host, HTTPS_SETTINGS);
  const housekeeping = setInterval(bank.housekeeping, 60_000);
  housekeeping.unref();
  const idleCollection = config.idleCollection === 'on' ? startIdleCollection({ collect: globalThis.gc, logger }) : null;
  bank.outbound.start();
  announcePki(logger, tls, httpsPort, clientIds);
  logger.info('sandbox bank listening', {
    http: `http://localhost:${port}`,
    https: `https://localhost:${httpsPort}`,
    data_dir: config.dataDir,
    mode: config.sandboxMode,
    kid: bank.signer.kid,
    clients: bank.registry.all().map((client) => client.id),
    started_from: launchOf().from,
    code_cache: launchOf().codeCache,
  });
  return {
    logger,
    async stop(signal) {
      logger.info('stopping: no new connections or pulls, waiting for requests and deliveries in flight', { signal, timeout_ms: config.shutdownTimeoutMs });
      clearInterval(housekeeping);
      idleCollection?.stop();
      // Live streams and waits end now; every other request in flight (a create in CREATE_LATENCY_MS) is answered.
      bank.events.endSubscriptions();
      await Promise.all([bank.outbound.stop(config.shutdownTimeoutMs), within(config.shutdownTimeoutMs, Promise.all(stops.map((stop) => stop.drain())))]);
      for (const server of servers) server.closeAllConnections();
      bank.close();
    },
  };
}

runMain('sandbox-bank', () => loadConfig(), start);
