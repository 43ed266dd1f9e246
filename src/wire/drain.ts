// A graceful stop for an HTTP(S) listener: answers in flight are still sent, each with `Connection: close`, so that
// no client sends its next request on a connection the stop is about to close.
import type { Server } from 'node:http';
import { Server as TlsServer } from 'node:tls';
import type { Socket } from 'node:net';

/** How often a stopping server closes the keep-alive connections its last answers left idle. */
const DRAIN_SWEEP_MS = 50;

/** node keeps the response a socket is answering on the socket (`_httpMessage`, undocumented but stable since 0.x). */
type AnsweringSocket = Socket & { _httpMessage?: { headersSent: boolean; shouldKeepAlive: boolean } | null };

export interface Drainable {
  /** Stops accepting; resolves once every connection has closed, each as soon as its answer is sent. */
  drain(): Promise<void>;
}

/** Call once, right after the server is created: it keeps the open connections (a cost per connection, not per request). */
export function drainable(server: Server): Drainable {
  const sockets = new Set<AnsweringSocket>();
  // https hands the HTTP parser the TLS socket, on 'secureConnection'; 'connection' would give the TCP socket under it.
  const opened = server instanceof TlsServer ? 'secureConnection' : 'connection';
  server.on(opened, (socket: AnsweringSocket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    drain() {
      // A request that arrives on a kept connection after the stop began is answered with `Connection: close` too.
      server.prependListener('request', (_req, res) => {
        res.shouldKeepAlive = false;
      });
      for (const socket of sockets) {
        const answer = socket._httpMessage;
        if (answer && !answer.headersSent) answer.shouldKeepAlive = false;
      }
      return new Promise((resolve) => {
        const sweep = setInterval(() => server.closeIdleConnections(), DRAIN_SWEEP_MS);
        server.close(() => {
          clearInterval(sweep);
          resolve();
        });
      });
    },
  };
}
