// sandbox-bank token: an access token by client_credentials, as a Connector gets one (profile section 3).
import { BANK_URL_OPTION, JSON_OPTION } from '../args';
import { bankUrlOf } from '../bank-api';
import { command } from '../command';
import { CLIENT_OPTIONS, identityOf, jwkOfFile, signingKeyOf, TLS_OPTIONS, tlsOf } from '../credentials';
import { EXIT, jsonText, usageError } from '../io';
import { requestToken } from '../token-request';

export const tokenCommand = command(
  {
    name: 'token',
    summary: 'Get an access token (POST /oauth/token, client_credentials with client_secret_basic).',
    details: ['Prints the access token alone (for TOKEN=$(...)), or with --json the whole answer.', 'With --dpop-key the token is DPoP-bound to that key (RFC 9449): send it as "Authorization: DPoP <token>" with a proof.'],
    options: {
      ...CLIENT_OPTIONS,
      'dpop-key': { type: 'string', value: 'file', help: 'a private JWK file: ask for a DPoP-bound token, proved with this key' },
      ...BANK_URL_OPTION,
      ...TLS_OPTIONS,
      ...JSON_OPTION,
    },
    examples: ['sandbox-bank token --client-id demo-connector --client-secret "$SECRET"', 'sandbox-bank token --credentials fixtures/demo-connector/credentials.json --json'],
  },
  async (parsed, io) => {
    const identity = identityOf(parsed);
    if (!identity.clientId) throw usageError('--client-id is required (or --credentials)');
    if (!identity.clientSecret) throw usageError('--client-secret is required (or --credentials)');
    const dpopFile = parsed.string('dpop-key');
    const dpopKey = dpopFile === undefined ? undefined : signingKeyOf({ kid: 'dpop', ...jwkOfFile(dpopFile) });
    const answer = await requestToken({ bank: bankUrlOf(parsed, io), clientId: identity.clientId, clientSecret: identity.clientSecret, dpopKey, tls: tlsOf(parsed) });
    io.stdout(parsed.flag('json') ? jsonText(answer) : `${answer.access_token}\n`);
    return EXIT.ok;
  },
);
