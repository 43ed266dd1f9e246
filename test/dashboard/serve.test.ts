// GET /dashboard/ (src/bank/http/dashboard.ts): the dashboard's static files on the Bank's app (both listeners
// serve that app): strict caching (no-cache, strong ETag, 304), a Content-Security-Policy that allows this origin
// only, the admin mode the page starts in, and refusals as problem details. And the files themselves: browser
// modules that import only each other (never src/bank), name no other host, and type-check against the DOM.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { adminModeOf, DASHBOARD_ASSETS_DIR, DASHBOARD_CSP } from '../../src/bank/http/dashboard';
import { ROOT, startBank } from '../helpers/bank';
import { contractCheckExceptDashboardFiles } from './browser';

const ASSETS = fs.readdirSync(DASHBOARD_ASSETS_DIR).sort();
const SCRIPTS = ASSETS.filter((name) => name.endsWith('.js'));

describe('GET /dashboard/', () => {
  let bank: Bank;
  contractCheckExceptDashboardFiles();

  beforeAll(async () => {
    bank = await startBank({ sandboxMode: 'relaxed', pollCron: 'off' });
  });
  afterAll(() => bank.close());

  it('answers the page with strict caching, a same-origin-only CSP, and the admin mode filled in', async () => {
    const page = await request(bank.app).get('/dashboard/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    // Each directive names this origin or nothing: no host, no scheme, no inline code, no eval.
    for (const directive of DASHBOARD_CSP.split('; ')) expect(directive).toMatch(/^[a-z-]+ '(self|none)'$/);
    expect(DASHBOARD_CSP).toContain("default-src 'none'");
    expect(page.text).toContain('<meta name="sandbox-bank-admin" content="open">');
    expect(page.text).toContain('<script type="module" src="app.js"></script>');
  });

  it('serves every file of src/dashboard/assets with its type, and a 304 for a known ETag', async () => {
    const types: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', svg: 'image/svg+xml', html: 'text/html; charset=utf-8' };
    expect(SCRIPTS).toContain('app.js');
    for (const name of ASSETS) {
      const answer = await request(bank.app).get(`/dashboard/${name}`);
      expect([name, answer.status, answer.headers['content-type'], answer.headers['content-security-policy']]).toEqual([name, 200, types[name.split('.').pop() as string], DASHBOARD_CSP]);
      const again = await request(bank.app).get(`/dashboard/${name}`).set('if-none-match', answer.headers.etag);
      expect([name, again.status, again.text]).toEqual([name, 304, '']);
    }
    const head = await request(bank.app).head('/dashboard/app.js');
    expect([head.status, head.headers['content-length']]).toEqual([200, String(fs.statSync(path.join(DASHBOARD_ASSETS_DIR, 'app.js')).size)]);
  });

  it('redirects /dashboard to /dashboard/ (the page links relatively)', async () => {
    const answer = await request(bank.app).get('/dashboard');
    expect([answer.status, answer.headers.location]).toEqual([301, '/dashboard/']);
  });

  it('refuses what it does not serve as problem details: unknown files 404, other methods 405', async () => {
    for (const target of ['/dashboard/missing.js', '/dashboard/..%2Fpackage.json', '/dashboard/tsconfig.json', '/dashboard/a/app.js']) {
      const answer = await request(bank.app).get(target);
      expect([target, answer.status, answer.headers['content-type'], answer.body.code]).toEqual([target, 404, 'application/problem+json', 'route_not_found']);
    }
    const posted = await request(bank.app).post('/dashboard/app.js').send({});
    expect([posted.status, posted.body.code, posted.headers.allow]).toEqual([405, 'method_not_allowed', 'GET']);
  });
});

describe('the admin mode the page starts in', () => {
  it('is "token" with ADMIN_TOKEN (either mode), "open" in relaxed mode without one, "disabled" in strict mode without one', async () => {
    expect(adminModeOf({ adminToken: 'secret', sandboxMode: 'strict' })).toBe('token');
    expect(adminModeOf({ adminToken: 'secret', sandboxMode: 'relaxed' })).toBe('token');
    expect(adminModeOf({ adminToken: null, sandboxMode: 'relaxed' })).toBe('open');
    expect(adminModeOf({ adminToken: null, sandboxMode: 'strict' })).toBe('disabled');
    const strict = await startBank({ adminToken: 'dashboard-admin', pollCron: 'off' });
    try {
      const page = await request(strict.app).get('/dashboard/');
      expect(page.text).toContain('<meta name="sandbox-bank-admin" content="token">');
      expect(page.text).not.toContain('dashboard-admin');
    } finally {
      strict.close();
    }
  });
});

describe('the browser code (src/dashboard/assets)', () => {
  const sources = SCRIPTS.map((name) => ({ name, text: fs.readFileSync(path.join(DASHBOARD_ASSETS_DIR, name), 'utf8') }));

  it('imports only its own modules, each of which exists (nothing from src/bank, no package, no URL)', () => {
    const imports = sources.flatMap(({ name, text }) => [...text.matchAll(/^\s*import\s[^'"]*['"]([^'"]+)['"]/gm)].map((match) => [name, match[1]] as const));
    expect(imports.length).toBeGreaterThan(10);
    const wrong = imports.filter(([, specifier]) => !/^\.\/[a-z0-9-]+\.js$/.test(specifier) || !SCRIPTS.includes(specifier.slice(2)));
    expect(wrong).toEqual([]);
    // JSDoc types may say import('./api.js'); code may not load anything at run time.
    const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    expect(sources.filter(({ text }) => /\brequire\s*\(|\bimport\s*\(/.test(code(text))).map(({ name }) => name)).toEqual([]);
  });

  it('names no other host: every fetch goes to this origin (no CDN, font or script from elsewhere)', () => {
    const files = ASSETS.filter((name) => /\.(js|css|html)$/.test(name)).map((name) => ({ name, text: fs.readFileSync(path.join(DASHBOARD_ASSETS_DIR, name), 'utf8') }));
    expect(files.filter(({ text }) => /\b(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i.test(text.replace(/^\s*\/\/.*$/gm, ''))).map(({ name }) => name)).toEqual([]);
    expect(files.filter(({ text }) => /@import|url\(\s*['"]?(https?:|\/\/)/i.test(text)).map(({ name }) => name)).toEqual([]);
    const fetched = sources.flatMap(({ text }) => [...text.matchAll(/fetch\(\s*([^,)]+)/g)].map((match) => match[1].trim()));
    expect(fetched.length).toBeGreaterThan(1);
    expect(fetched.filter((target) => !/^[`'"]\/sandbox/.test(target) && target !== 'absolutePath')).toEqual([]);
  });

  it('type-checks against the DOM (src/dashboard/tsconfig.json: checkJs, strict)', () => {
    const tsc = require.resolve('typescript/bin/tsc');
    let output = '';
    try {
      output = execFileSync(process.execPath, [tsc, '-p', path.join(ROOT, 'src/dashboard/tsconfig.json')], { cwd: ROOT, encoding: 'utf8' });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    expect(output).toBe('');
  });
});
