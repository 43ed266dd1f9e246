import { defineCase } from '../../case';
import { expectRefusedConnection } from './handshake';

export default defineCase('transport.client_certificate_required', 0, (context) =>
  expectRefusedConnection(context, {}, 'a pull over TLS with no client certificate', 'no client certificate presented'),
);
