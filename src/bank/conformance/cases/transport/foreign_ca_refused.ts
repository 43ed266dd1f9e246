import { foreignClientCertificate } from '../../../security/pki';
import { defineCase } from '../../case';
import { expectRefusedConnection } from './handshake';

export default defineCase('transport.foreign_ca_refused', 0, async (context) => {
  const { cert, key } = await foreignClientCertificate(context.bankClientId);
  return expectRefusedConnection(context, { cert, key }, 'a pull over TLS with a certificate from another CA', `client certificate CN=${context.bankClientId} issued by an untrusted CA`);
});
