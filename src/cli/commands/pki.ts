// sandbox-bank pki --client <id>: one more client certificate (CN = <id>) from the existing sandbox CA, as
// `npm run pki` does (scripts/pki.js).
import path from 'node:path';
import { command } from '../command';
import { EXIT, failed, jsonText, usageError } from '../io';
import { CLIENT_ID_FORM, JSON_OPTION } from '../args';

export const pkiCommand = command(
  {
    name: 'pki',
    summary: 'Issue one more client certificate (CN = the client id) from the existing development CA.',
    details: ['The PKI directory: --dir, else $PKI_DIR, else $DATA_DIR/pki, else ./data/pki (the Bank creates it on its first start).', 'An existing certificate is left as it is.'],
    options: {
      client: { type: 'string', value: 'id', help: 'the client id (required)' },
      dir: { type: 'string', value: 'dir', help: 'the PKI directory' },
      ...JSON_OPTION,
    },
    examples: ['sandbox-bank pki --client acme'],
  },
  async (parsed, io) => {
    const clientId = parsed.required('client');
    if (!CLIENT_ID_FORM.test(clientId)) throw usageError(`--client must be 1 to 64 of [A-Za-z0-9._-], got "${clientId}"`);
    const dir = parsed.string('dir') ?? io.env.PKI_DIR ?? path.join(io.env.DATA_DIR ?? './data', 'pki');
    // Loaded here: the certificate library is needed by this command only.
    const { issueOneClientCertificate } = require('../../bank/security/pki') as typeof import('../../bank/security/pki');
    let issued: { cert: string; key: string; created: boolean };
    try {
      issued = await issueOneClientCertificate(dir, clientId);
    } catch (error) {
      throw failed(`pki: ${(error as Error).message}`);
    }
    if (parsed.flag('json')) io.stdout(jsonText(issued));
    else io.stdout(issued.created ? `issued ${issued.cert} and ${issued.key}\n` : `${issued.cert} already exists; left as it is\n`);
    return EXIT.ok;
  },
);
