// The edge of both sides' HTTP servers: listening, and what no route answers still leaves as a problem
// (profile section 5).
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import type { Request } from 'express';
import { ProblemError } from './problems';

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/;

/**
 * The request target in origin form, path and raw query exactly as they travelled (profile section 1, `@target-uri`).
 * A server MUST accept the absolute form too (RFC 9112 section 3.2.2: `POST http://host:port/payment-orders`), whose
 * scheme and authority are cut here. The origin form (the usual one) is known by its first character and returned
 * as is.
 */
export function originForm(target: string): string {
  if (target.charCodeAt(0) === 0x2f /* / */) return target;
  const absolute = ABSOLUTE_FORM.exec(target);
  if (!absolute) return target;
  const rest = target.slice(absolute[0].length);
  return rest.charCodeAt(0) === 0x2f ? rest : `/${rest}`;
}

/** The authority of an absolute-form target, which RFC 9112 section 3.2.2 puts before Host; null for origin form. */
export function targetAuthority(target: string): string | null {
  if (target.charCodeAt(0) === 0x2f) return null;
  return ABSOLUTE_FORM.exec(target)?.[1] ?? null;
}

/**
 * scheme://authority of a request: https on a TLS socket, and the absolute-form target's authority, which RFC 9112
 * section 3.2.2 puts before Host, else the Host header (`hostWhenNone` without one: an HTTP/1.0 request).
 */
export function requestOrigin(req: Pick<Request, 'originalUrl' | 'headers' | 'socket'>, hostWhenNone: string): string {
  const scheme = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  return `${scheme}://${targetAuthority(req.originalUrl) ?? req.headers.host ?? hostWhenNone}`;
}

/** The path as the client sent it, without the query: req.path loses a mounted router's prefix while it runs. */
export function requestPath(req: Pick<Request, 'originalUrl'>): string {
  return originForm(req.originalUrl).split('?')[0];
}

/** The last route: anything no route matched is 404 route_not_found. */
export function routeNotFound(req: Request): never {
  throw new ProblemError('route_not_found', `no endpoint ${req.method} ${req.path}`);
}

/** For a known path with a method it does not serve: 405 method_not_allowed, with Allow. */
export function methodNotAllowed(allowed: string): () => never {
  return () => {
    throw new ProblemError('method_not_allowed', `use ${allowed} on this endpoint`, { headers: { Allow: allowed } });
  };
}

/**
 * RFC 9112 §3.2: an HTTP/1.1 request without Host, or any request with two, is a 400. Both sides create their servers with
 * requireHostHeader: false, since node's own answer has no body, and refuse here instead, with the request's id
 * and in its route's format. HTTP/1.0 without Host stays allowed, as in node.
 */
export function missingHost(req: Request): ProblemError | undefined {
  if (req.headers.host !== undefined) {
    // Node keeps the first of several Host lines; RFC 9112 section 3.2 makes more than one a 400 in any version.
    if (hostLines(req.rawHeaders) < 2) return undefined;
    return new ProblemError('header_invalid', 'the request has more than one Host header (RFC 9112 section 3.2)');
  }
  if (req.httpVersionMajor !== 1 || req.httpVersionMinor !== 1) return undefined;
  return new ProblemError('header_invalid', 'the request has no Host header, which HTTP/1.1 requires (RFC 9112 section 3.2)');
}

function hostLines(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === 4 && name.toLowerCase() === 'host') count++;
  }
  return count;
}

/** The settings that name a listener's port and host, for its refusals. */
export interface ListenSettings {
  port: string;
  host: string;
}

/**
 * Listens on `port`; resolves the port taken (0 picks a free one). An address that cannot be had is refused with
 * the settings that name it (PORT, HOST) and what to do, not node's bare `listen EADDRINUSE`.
 */
export function listen(server: Server, port: number, host: string, settings: ListenSettings = { port: 'the port', host: 'the host' }): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, port, host, settings)));
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/**
 * Refuses, as listen() would, a port that is not free now (0 is always free). For a start that must not change
 * anything before it can listen: a Bank binds after it has migrated its store, and checks first.
 */
export async function checkPortFree(port: number, host: string, settings: ListenSettings): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await listen(probe, port, host, settings);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

function listenError(error: NodeJS.ErrnoException, port: number, host: string, settings: ListenSettings): Error {
  const where = `${settings.port} ${port} on ${host}`;
  if (error.code === 'EADDRINUSE') return new Error(`${where} is already in use by another process: stop it, or set ${settings.port} to a free port (0 picks one)`);
  if (error.code === 'EACCES') return new Error(`${where} needs privileges this process does not have: set ${settings.port} to a port above 1023`);
  if (error.code === 'EADDRNOTAVAIL') return new Error(`${where}: ${host} is not an address of this machine: set ${settings.host} to one that is (0.0.0.0 for all)`);
  return error;
}
