// sandbox-bank sign METHOD PATH: the signed headers of one request, for use from any language or from curl
// (`sandbox-bank sign ... | curl -H @- ...`). Signs with the wire kernel; sends nothing.
import { systemClock } from '../../wire/clock';
import { SignedClient } from '../../wire/signed-client';
import { BANK_URL_OPTION } from '../args';
import { bankEndpoint, bankUrlOf } from '../bank-api';
import { command } from '../command';
import { identityOf, KEY_OPTION, signingKeyOf } from '../credentials';
import { EXIT, jsonText, usageError } from '../io';
import { baseOf, bodyOf, curlCommand, displayName, FLOW_OPTIONS, flowHeaders, flowOf, methodOf, pathOf } from '../signing';

const FORMATS = ['headers', 'json', 'curl'] as const;

export const signCommand = command(
  {
    name: 'sign',
    summary: 'Print the signed headers of one request (X-Client-Id, X-Timestamp, X-Nonce, ..., X-Signature); sends nothing.',
    details: [
      '--format headers (default): "Name: value" lines, for curl -H @-;',
      'json: {flow, method, target, headers, signature_base}; curl: the whole request as a curl command (against --bank).',
      'The flow follows from METHOD and PATH (POST /payment-orders: create; GET .../status: status;',
      'GET /payment-orders: pull; other POST: callback), or --flow.',
      'Add Authorization yourself, or --token. --print-base writes the signature base to stderr.',
    ],
    arguments: [
      { name: 'METHOD', required: true },
      { name: 'PATH', required: true },
    ],
    options: {
      'client-id': { type: 'string', value: 'id', help: 'X-Client-Id (the Bank signs as its BANK_CLIENT_ID, "sandbox-bank")' },
      ...KEY_OPTION,
      credentials: { type: 'string', value: 'file', help: 'a credentials JSON file (client_id and private_jwk are used)' },
      ...FLOW_OPTIONS,
      format: { type: 'string', value: 'format', help: `${FORMATS.join(', ')} (default headers)` },
      token: { type: 'string', value: 'token', help: 'add "Authorization: Bearer <token>"' },
      'print-base': { type: 'boolean', help: 'print the signature base to stderr' },
      ...BANK_URL_OPTION,
    },
    examples: [
      'sandbox-bank sign GET /payment-orders/ORDER-1/status --credentials acme.credentials.json | curl -H @- --cert acme.crt --key acme.key --cacert ca.crt https://localhost:8443/payment-orders/ORDER-1/status',
      'sandbox-bank sign POST /payment-orders --data @order.json --credentials acme.credentials.json --format json',
    ],
  },
  async (parsed, io) => {
    const method = methodOf(parsed.arg(0) as string);
    const path = pathOf(parsed.arg(1) as string);
    const flow = flowOf(parsed, method, path);
    const format = parsed.oneOf('format', FORMATS) ?? 'headers';
    const identity = identityOf(parsed);
    if (!identity.clientId) throw usageError('--client-id is required (or --credentials)');
    const signer = signingKeyOf(identity.privateJwk);
    const body = bodyOf(parsed, method);
    const url = bankEndpoint(bankUrlOf(parsed, io), path);
    // Only its signing is used: this client never sends (hence no time-out worth setting).
    const client = new SignedClient({ clientId: identity.clientId, signer, clock: systemClock, timeoutMs: 1 });
    const signed = client.signedHeaders(flow, method, url, body, flowHeaders(flow, parsed));
    const base = baseOf(flow, method, url, signed, body);
    const token = parsed.string('token');
    const headers = { ...signed, ...(body.length > 0 ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) };
    if (parsed.flag('print-base')) io.stderr(`${base}\n`);
    if (format === 'json') io.stdout(jsonText({ flow, method, target: url.pathname + url.search, headers, signature_base: base }));
    else if (format === 'curl') io.stdout(curlCommand({ method, url, headers, body }));
    else io.stdout(Object.entries(headers).map(([name, value]) => `${displayName(name)}: ${value}\n`).join(''));
    return EXIT.ok;
  },
);
