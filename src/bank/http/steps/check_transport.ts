// Transport (profile section 4): reverse polling needs mTLS with a sandbox-CA certificate whose CN is X-Client-Id.
import type { TLSSocket } from 'node:tls';
import { ProblemError } from '../../../wire/problems';
import { Step } from '../exchange';
import { authInvalid } from './check_authorization';

export function peerCommonName(socket: TLSSocket): string | null {
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return null;
  const cn = cert.subject?.CN;
  return Array.isArray(cn) ? (cn[0] ?? null) : (cn ?? null);
}

export const checkTransport: Step = (exchange, services, spec) => {
  if (!spec.requiresMtls) return;
  const socket = exchange.req.socket as TLSSocket;
  if (!socket.encrypted) {
    if (services.config.sandboxMode === 'relaxed') return;
    throw new ProblemError('mtls_required', 'reverse polling needs HTTPS with a client certificate (SANDBOX_MODE=relaxed allows plain HTTP)');
  }
  if (!socket.authorized || peerCommonName(socket) === null) {
    throw new ProblemError('mtls_required', 'present a client certificate issued by the sandbox CA');
  }
};

/** Runs after check_headers: the certificate must name the caller. */
export const checkCertificateMatchesClient: Step = (exchange, _services, spec) => {
  const socket = exchange.req.socket as TLSSocket;
  if (!spec.requiresMtls || !socket.encrypted) return;
  const cn = peerCommonName(socket);
  const clientId = exchange.header('x-client-id');
  if (cn !== clientId) {
    throw authInvalid('certificate_client_mismatch', `the client certificate is issued to "${cn}", not to X-Client-Id "${clientId}"`);
  }
};
