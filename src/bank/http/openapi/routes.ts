// GET /openapi.json, /openapi/connector.json and /docs on both listeners, public (they describe, they reveal
// nothing). Built once, on the first request: the schema files do not change while the Bank runs; the generator's
// modules load then too, not at start (issue 15). Each answer has a strong ETag (If-None-Match gives a 304) and may
// be cached for five minutes.
import { createHash } from 'node:crypto';
import type express from 'express';
import type { Request, Response } from 'express';
import type { DocumentOptions } from './documents';

const CACHE_CONTROL = 'public, max-age=300';
/** The page needs nothing from anywhere: no script at all, its own inline style only. */
const DOCS_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

interface Representation {
  contentType: string;
  bytes: Buffer;
  etag: string;
}

function representation(contentType: string, text: string): Representation {
  const bytes = Buffer.from(text, 'utf8');
  return { contentType, bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"` };
}

/** The three answers, built together on first use. */
function lazyRepresentations(options: DocumentOptions) {
  let built: { bank: Representation; connector: Representation; docs: Representation } | null = null;
  return () => {
    if (!built) {
      const { bankDocument, connectorDocument } = require('./documents') as typeof import('./documents');
      const { docsPage } = require('./docs-page') as typeof import('./docs-page');
      const bank = bankDocument(options);
      const connector = connectorDocument();
      built = {
        bank: representation('application/json', JSON.stringify(bank, null, 2)),
        connector: representation('application/json', JSON.stringify(connector, null, 2)),
        docs: representation('text/html; charset=utf-8', docsPage(bank, connector)),
      };
    }
    return built;
  };
}

function matchesETag(req: Request, etag: string): boolean {
  const given = req.headers['if-none-match'];
  if (typeof given !== 'string') return false;
  return given.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*');
}

function send(req: Request, res: Response, answer: Representation, extraHeaders: Record<string, string> = {}): void {
  res.setHeader('Cache-Control', CACHE_CONTROL);
  res.setHeader('ETag', answer.etag);
  for (const [name, value] of Object.entries(extraHeaders)) res.setHeader(name, value);
  if (matchesETag(req, answer.etag)) {
    res.status(304).end();
    return;
  }
  res.status(200).setHeader('Content-Type', answer.contentType);
  res.setHeader('Content-Length', String(answer.bytes.length));
  res.end(req.method === 'HEAD' ? undefined : answer.bytes);
}

export function openApiRoutes(app: express.Express, options: DocumentOptions): void {
  const built = lazyRepresentations(options);
  app.get('/openapi.json', (req, res) => send(req, res, built().bank));
  app.get('/openapi/connector.json', (req, res) => send(req, res, built().connector));
  app.get('/docs', (req, res) => send(req, res, built().docs, { 'Content-Security-Policy': DOCS_CSP, 'X-Content-Type-Options': 'nosniff' }));
}
