import { foreignClientCertificate } from '../../../security/pki';
import { defineCase, skipped } from '../../case';
import { expectRefusedConnection, PLAIN_HTTP } from './handshake';

export default defineCase('transport.foreign_ca_refused', 0, async (context) => {
  if (!context.probe.target.baseUrl.startsWith('https:')) return skipped(PLAIN_HTTP);
  const { cert, key } = await foreignClientCertificate(context.bankClientId);
  return expectRefusedConnection(context, { cert, key }, 'a pull over TLS with a certificate from another CA', `client certificate CN=${context.bankClientId} issued by an untrusted CA`);
});
