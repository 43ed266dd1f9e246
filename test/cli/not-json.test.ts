// A --bank that is not the Sandbox Bank (a web page answering 200 text/html, or a JSON server with other JSON):
// every command that reads the Bank's JSON stops with exit 2 and a message naming the URL and what came back
// (status, content type, first bytes), never a stack and never `undefined` on stdout.
import http from 'node:http';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import { ROOT, runCli } from './helpers';

const DEMO_CREDENTIALS = path.join(ROOT, 'fixtures/demo-connector/credentials.json');
const PAGE = '<!doctype html><html><head><title>Welcome to nginx!</title></head><body>It works</body></html>';

/** A server answering every request with 200 and `body` of `type`; close() stops it. */
async function answering(type: string, body: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': type }).end(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const COMMANDS: [string, string[]][] = [
  ['a list', ['clients', 'list']],
  ['another list', ['orders', 'list', '--client', 'acme']],
  ['the journal', ['journal', 'list']],
  ['a show', ['clients', 'show', 'acme']],
  ['an order', ['orders', 'show', 'acme', 'ORDER-1']],
  ['a journal entry', ['journal', 'show', '42']],
  ['a journal entry --curl', ['journal', 'show', '42', '--curl']],
  ['create', ['clients', 'create', '--client-id', 'acme']],
  ['delete', ['clients', 'delete', 'acme']],
  ['an update', ['clients', 'update', 'acme', '--name', 'Acme']],
  ['a pause', ['clients', 'pause', 'acme']],
  ['a poll', ['clients', 'poll', 'acme']],
  ['a clock attach', ['clock', 'attach', 'acme']],
  ['a clock advance', ['clock', 'advance', 'acme', '--seconds', '60']],
  ['an outcome', ['outcome', 'acme', 'ORDER-1', '--status', 'SUCCESS']],
  ['a redelivery', ['redeliver', '7']],
  ['the dead redelivered', ['redeliver', '--dead']],
  ['a reset', ['reset']],
  ['a wait', ['wait', 'acme', 'ORDER-1']],
  ['journal clear', ['journal', 'clear']],
  ['the events', ['events', '--count', '1']],
  ['verify --journal', ['verify', '--journal', '42']],
  ['conformance', ['conformance', '--client', 'acme']],
  ['a token', ['token', '--credentials', DEMO_CREDENTIALS]],
  ['a request (its token)', ['request', 'POST', '/payment-orders', '--data', '{}', '--credentials', DEMO_CREDENTIALS]],
];

describe('a --bank answering 200 text/html', () => {
  let page: Awaited<ReturnType<typeof answering>>;
  beforeAll(async () => {
    page = await answering('text/html; charset=utf-8', PAGE);
  });
  afterAll(() => page.close());

  it.each(COMMANDS)('%s: exit 2, the URL and what came back, no stack', async (_what, argv) => {
    const run = await runCli(argv, { SANDBOX_BANK_URL: page.url, ADMIN_TOKEN: 'x' });
    expect(run.stderr).not.toContain('unexpected error');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stdout).not.toContain('undefined');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${page.url}/`);
    expect(run.stderr).toContain('200, text/html; charset=utf-8');
    expect(run.stderr).toContain('<!doctype html><html><head><title>Welcome to nginx!');
  });

  it('the message names the request and says what was expected', async () => {
    const run = await runCli(['clients', 'show', 'acme'], { SANDBOX_BANK_URL: page.url });
    expect(run.stderr).toBe(
      `sandbox-bank clients show: GET ${page.url}/sandbox/clients/acme answered 200, text/html; charset=utf-8, ${PAGE.length} bytes: ` +
        `"${PAGE.slice(0, 80)}"…; expected the Bank's JSON (is --bank the Sandbox Bank?)\n`,
    );
  });
});

describe('a --bank answering 200 with JSON of another shape', () => {
  let other: Awaited<ReturnType<typeof answering>>;
  beforeAll(async () => {
    other = await answering('application/json', '{"hello":"world"}');
  });
  afterAll(() => other.close());

  // The commands that print one resource as it came (show, delete, attach) have nothing to miss.
  const READERS = COMMANDS.filter(([what]) => !['a show', 'an order', 'a journal entry', 'delete', 'a clock attach'].includes(what));

  it.each(READERS)('%s: exit 2, not a crash', async (_what, argv) => {
    const run = await runCli(argv, { SANDBOX_BANK_URL: other.url, ADMIN_TOKEN: 'x' });
    expect(run.stderr).not.toContain('unexpected error');
    expect(run.stdout).not.toContain('undefined');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('200, application/json, 17 bytes: "{\\"hello\\":\\"world\\"}"');
  });
});
