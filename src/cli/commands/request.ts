// sandbox-bank request METHOD PATH: one request exactly as a Connector sends it to the Bank (a create, or
// reverse polling on the mTLS listener): token fetched, X-Client-Id, X-Request-Id, X-Timestamp, X-Nonce,
// X-Idempotency-Key, Content-Digest and X-Signature, signed by the wire kernel's SignedClient.
import { systemClock } from '../../wire/clock';
import type { SigningKey } from '../../wire/keys';
import type { SignedFlow } from '../../wire/signature-base';
import { SignedClient } from '../../wire/signed-client';
import { BANK_URL_OPTION, JSON_OPTION, Parsed } from '../args';
import { bankEndpoint, bankUrlOf } from '../bank-api';
import { command } from '../command';
import { CREDENTIAL_OPTIONS, ClientIdentity, identityOf, jwkOfFile, signingKeyOf, TLS_OPTIONS, tlsOf } from '../credentials';
import { CliError, CliIo, EXIT, jsonText, unavailable, usageError } from '../io';
import { parseJsonText } from '../http';
import { baseOf, bodyOf, curlCommand, FLOW_OPTIONS, flowHeaders, flowOf, methodOf, pathOf } from '../signing';
import { dpopProof, requestToken, TokenAnswer, TokenRequest } from '../token-request';

const TIMEOUT_MS = 30_000;

/** How the request authorises itself: the Authorization header (and a DPoP proof), or a shell placeholder. */
interface Authorization {
  headers: Record<string, string>;
  /** For --dry-run without a token: Authorization: Bearer $TOKEN, expanded by the shell. */
  shellHeaders: Record<string, string>;
}

/** The token, or exit 2 whatever the token endpoint said (docs/cli.md: no token is exit 2), with its own words. */
async function tokenFor(request: TokenRequest): Promise<TokenAnswer> {
  try {
    return await requestToken(request);
  } catch (error) {
    if (error instanceof CliError) throw unavailable(`no access token: ${error.message}`);
    throw error;
  }
}

async function authorization(parsed: Parsed, io: CliIo, identity: ClientIdentity, method: string, url: URL): Promise<Authorization> {
  const apiKey = parsed.string('api-key');
  if (apiKey !== undefined) return { headers: { authorization: `X-API-Key ${apiKey}` }, shellHeaders: {} };
  const given = parsed.string('token');
  if (given !== undefined) return { headers: { authorization: `Bearer ${given}` }, shellHeaders: {} };
  if (parsed.flag('dry-run')) return { headers: {}, shellHeaders: { authorization: 'Bearer $TOKEN' } };
  if (!identity.clientSecret) throw usageError('--client-secret is required to get a token (or --credentials, --token, --api-key)');
  const tokenRequest: TokenRequest = { bank: bankUrlOf(parsed, io), clientId: identity.clientId as string, clientSecret: identity.clientSecret, tls: tlsOf(parsed) };
  const dpopFile = parsed.string('dpop-key');
  if (dpopFile !== undefined) {
    const dpopKey: SigningKey = signingKeyOf({ kid: 'dpop', ...jwkOfFile(dpopFile) });
    const token = await tokenFor({ ...tokenRequest, dpopKey });
    return { headers: { authorization: `DPoP ${token.access_token}`, dpop: dpopProof(dpopKey, { method, url, accessToken: token.access_token }) }, shellHeaders: {} };
  }
  const token = await tokenFor(tokenRequest);
  return { headers: { authorization: `Bearer ${token.access_token}` }, shellHeaders: {} };
}

function printAnswer(io: CliIo, parsed: Parsed, answer: { status: number; headers: Readonly<Record<string, unknown>>; body: string }, base: string): void {
  const json = parseJsonText(answer.body);
  if (parsed.flag('json')) {
    io.stdout(jsonText({ status: answer.status, headers: answer.headers, body: json ?? answer.body, signature_base: base }));
    return;
  }
  io.stdout(`HTTP ${answer.status}\n`);
  if (answer.body !== '') io.stdout(json === undefined ? `${answer.body}\n` : jsonText(json));
}

function exitOfStatus(status: number): number {
  if (status >= 200 && status < 300) return EXIT.ok;
  return status >= 500 ? EXIT.unavailable : EXIT.failed;
}

export const requestCommand = command(
  {
    name: 'request',
    summary: 'Send one fully signed request to the Bank, as a Connector would.',
    details: [
      'Gets a token (client_credentials), then signs with the wire kernel: X-Client-Id, X-Request-Id, X-Timestamp,',
      'X-Nonce, X-Idempotency-Key (create), Content-Digest and X-Signature. Prints the status and the answer.',
      'A create: POST /payment-orders --data @order.json. Reverse polling: GET /payment-orders/<ref>/status on the',
      'https listener with --cert, --key-pem and --ca (mTLS), e.g. --bank https://localhost:8443.',
      'Exit 0 for a 2xx, 1 for a refusal (4xx), 2 when the Bank is unreachable, answers 5xx or refuses the client.',
    ],
    arguments: [
      { name: 'METHOD', required: true },
      { name: 'PATH', required: true },
    ],
    options: {
      ...CREDENTIAL_OPTIONS,
      ...FLOW_OPTIONS,
      'print-base': { type: 'boolean', help: 'print the signature base to stderr (what X-Signature signs)' },
      'dry-run': { type: 'boolean', help: 'print the request as a curl command and send nothing' },
      token: { type: 'string', value: 'token', help: 'use this access token instead of getting one' },
      'api-key': { type: 'string', value: 'key', help: 'authorise with "X-API-Key <key>" (reverse polling only)' },
      'dpop-key': { type: 'string', value: 'file', help: 'a private JWK file: a DPoP-bound token and a proof per request' },
      ...BANK_URL_OPTION,
      ...TLS_OPTIONS,
      ...JSON_OPTION,
    },
    examples: [
      'sandbox-bank request POST /payment-orders --data @order.json --client-id acme --client-secret "$SECRET" --key acme.jwk',
      'sandbox-bank request GET /payment-orders/ORDER-1/status --credentials acme.credentials.json --bank https://localhost:8443 --cert acme.crt --key-pem acme.key --ca sandbox-ca.crt',
      'sandbox-bank request POST /payment-orders --data @order.json --credentials acme.credentials.json --dry-run',
    ],
  },
  async (parsed, io) => {
    const method = methodOf(parsed.arg(0) as string);
    const path = pathOf(parsed.arg(1) as string);
    const flow: SignedFlow = flowOf(parsed, method, path);
    const identity = identityOf(parsed);
    if (!identity.clientId) throw usageError('--client-id is required (or --credentials)');
    const signer = signingKeyOf(identity.privateJwk);
    const body = bodyOf(parsed, method);
    const url = bankEndpoint(bankUrlOf(parsed, io), path);
    const tls = tlsOf(parsed);
    const client = new SignedClient({ clientId: identity.clientId, signer, clock: systemClock, timeoutMs: TIMEOUT_MS, tls });
    try {
      // The token first, so the timestamp signed is as fresh as possible when the request leaves.
      const auth = await authorization(parsed, io, identity, method, url);
      const signed = client.signedHeaders(flow, method, url, body, flowHeaders(flow, parsed));
      const base = baseOf(flow, method, url, signed, body);
      const headers = { ...signed, ...(body.length > 0 ? { 'content-type': 'application/json' } : {}), ...auth.headers };
      if (parsed.flag('print-base')) io.stderr(`${base}\n`);
      if (parsed.flag('dry-run')) {
        io.stdout(curlCommand({ method, url, headers, body, shellHeaders: auth.shellHeaders, tls: { cert: parsed.string('cert'), key: parsed.string('key-pem'), ca: parsed.string('ca') } }));
        return EXIT.ok;
      }
      const answer = await client.send(method, url, headers, body.length > 0 ? body : undefined);
      if (answer.status === null) throw unavailable(`no answer from ${url.origin}: ${answer.error}`);
      printAnswer(io, parsed, { status: answer.status, headers: answer.headers, body: answer.body }, base);
      return exitOfStatus(answer.status);
    } finally {
      client.close();
    }
  },
);
