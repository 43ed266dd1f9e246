// GET /dashboard/: the dashboard (docs/dashboard.md), an offline single-page UI served on both listeners. Its
// files are static (src/dashboard/assets/: plain JavaScript modules, CSS and an icon; nothing to build) and
// public: they hold no data. Everything the page shows it reads from /sandbox and its event stream, with the
// admin token the user types in. The page is told one thing by the Bank: whether /sandbox needs that token, so
// it can ask for it before its first call instead of being refused (a refusal is an error in the browser console).
//
// Caching is strict: every answer must be revalidated (no-cache, strong ETag, 304), so an upgraded Bank never
// runs with yesterday's script. The Content-Security-Policy allows this origin only: no inline script or
// style, no other host for anything, no framing.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../wire/project-root';
import type express from 'express';
import type { Request, Response } from 'express';
import { BankConfig } from '../config';
import { methodNotAllowed } from '../../wire/http-edge';

/** Where the dashboard's files are, whether the Bank runs from src/, dist/ or the bundle. */
export const DASHBOARD_ASSETS_DIR = path.join(PROJECT_ROOT, 'src', 'dashboard', 'assets');

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const CACHE_CONTROL = 'no-cache';
const INDEX = 'index.html';
/** The only file names served: flat, lower case, one of the known types (nothing else under the folder leaks). */
const SERVED_NAME = /^[a-z0-9][a-z0-9-]*\.(html|js|css|svg)$/;
const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};
/** index.html names the admin mode in a meta tag; the Bank fills it in. */
const ADMIN_MODE_PLACEHOLDER = '%ADMIN_MODE%';

/** How the page reaches /sandbox: with a token, openly (relaxed mode without ADMIN_TOKEN), or not at all. */
export type AdminMode = 'token' | 'open' | 'disabled';

export function adminModeOf(config: Pick<BankConfig, 'adminToken' | 'sandboxMode'>): AdminMode {
  if (config.adminToken) return 'token';
  return config.sandboxMode === 'relaxed' ? 'open' : 'disabled';
}

interface Asset {
  contentType: string;
  bytes: Buffer;
  etag: string;
}

function asset(name: string, bytes: Buffer): Asset {
  const extension = name.slice(name.lastIndexOf('.') + 1);
  return { contentType: CONTENT_TYPES[extension], bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"` };
}

/** Every servable file of `dir`, read once (an absent folder serves nothing: every path is then a 404). */
export function loadDashboardAssets(dir: string, mode: AdminMode): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!fs.existsSync(dir)) return assets;
  for (const name of fs.readdirSync(dir).sort()) {
    if (!SERVED_NAME.test(name) || !fs.statSync(path.join(dir, name)).isFile()) continue;
    let bytes = fs.readFileSync(path.join(dir, name));
    if (name === INDEX) bytes = Buffer.from(bytes.toString('utf8').replace(ADMIN_MODE_PLACEHOLDER, mode), 'utf8');
    assets.set(name, asset(name, bytes));
  }
  return assets;
}

function matchesETag(req: Request, etag: string): boolean {
  const given = req.headers['if-none-match'];
  if (typeof given !== 'string') return false;
  return given.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*');
}

function send(req: Request, res: Response, file: Asset): void {
  res.setHeader('Cache-Control', CACHE_CONTROL);
  res.setHeader('ETag', file.etag);
  res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  if (matchesETag(req, file.etag)) {
    res.status(304).end();
    return;
  }
  res.status(200).setHeader('Content-Type', file.contentType);
  res.setHeader('Content-Length', String(file.bytes.length));
  res.end(req.method === 'HEAD' ? undefined : file.bytes);
}

export function dashboardRoutes(app: express.Express, config: Pick<BankConfig, 'adminToken' | 'sandboxMode'>, dir = DASHBOARD_ASSETS_DIR): void {
  let assets: Map<string, Asset> | null = null;
  const files = () => (assets ??= loadDashboardAssets(dir, adminModeOf(config)));
  // Non-strict routing matches /dashboard and /dashboard/ alike: the page's relative links need the slash.
  app.get('/dashboard', (req, res, next) => {
    if (!req.path.endsWith('/')) return res.redirect(301, '/dashboard/');
    const index = files().get(INDEX);
    return index ? send(req, res, index) : next();
  });
  app.get('/dashboard/:file', (req, res, next) => {
    const file = files().get(String(req.params.file));
    return file ? send(req, res, file) : next();
  });
  const refuseWrites = methodNotAllowed('GET');
  app.all(['/dashboard', '/dashboard/:file'], (req, _res, next) => (req.method === 'GET' || req.method === 'HEAD' ? next() : refuseWrites()));
}
