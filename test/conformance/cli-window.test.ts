// `sandbox-bank conformance --window-s`: the CLI accepts exactly what POST /sandbox/conformance-runs accepts
// (WINDOW_S, the schema's bounds), so a value the Bank would refuse (400 body_invalid, formerly exit 2) is a usage
// error, exit 3 (conformance.md section 1), before any request.
import fs from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import { WINDOW_S } from '../../src/bank/conformance/model';
import { ROOT, runCli } from '../cli/helpers';

let server: http.Server;
let bankUrl: string;
const requests: { method?: string; url?: string; body: string }[] = [];

beforeAll(async () => {
  // Answers every start with 404 unknown client: the run cannot start (exit 2), but the request was made.
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      requests.push({ method: req.method, url: req.url, body });
      const problem = JSON.stringify({ type: 'about:blank', title: 'not_found', status: 404, detail: 'no client acme is registered', code: 'not_found' });
      res.writeHead(404, { 'content-type': 'application/problem+json' }).end(problem);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  bankUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  requests.length = 0;
});

const conformance = (windowS: string) => runCli(['conformance', '--bank', bankUrl, '--client', 'acme', '--admin-token', 't', '--window-s', windowS]);

it('the bounds are those of the Bank\'s start schema', () => {
  const schema = JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas/control/conformance-run-start.schema.json'), 'utf8'));
  expect(schema.properties.window_s).toMatchObject({ type: 'integer', minimum: WINDOW_S.min, maximum: WINDOW_S.max });
});

it.each(['900', '601', '3600', '0'])('--window-s %s is a usage error (exit 3) and nothing is sent', async (value) => {
  const run = await conformance(value);
  expect(run.code).toBe(3);
  expect(run.stderr).toContain(`--window-s must be an integer from ${WINDOW_S.min} to ${WINDOW_S.max}, got "${value}"`);
  expect(requests).toEqual([]);
});

it.each(['1', '600'])('--window-s %s is sent to the Bank as window_s', async (value) => {
  const run = await conformance(value);
  expect(run.code).toBe(2); // the fake Bank knows no client: the run could not start
  expect(requests.map((one) => [one.method, one.url, JSON.parse(one.body).window_s])).toEqual([['POST', '/sandbox/conformance-runs', Number(value)]]);
});

it('the help names the range', async () => {
  const run = await runCli(['conformance', '--help']);
  expect(run.stdout).toMatch(new RegExp(`--window-s.*${WINDOW_S.min} to ${WINDOW_S.max}`));
});
