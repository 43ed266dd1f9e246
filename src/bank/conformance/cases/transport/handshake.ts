// The transport cases' own connections: a correct signed pull, sent over a TLS connection whose client side is
// deliberately wrong (no certificate, or one from a CA nobody trusts). Outside the signed client on purpose: its
// agent always presents the Bank's certificate.
import https from 'node:https';
import { CaseContext, describeAnswer, failed, Judgement, passed, skipped } from '../../case';
import { Answer } from '../../probe';
import { EPOCH } from '../pull/page';

export const PLAIN_HTTP = 'the Connector is served over plain HTTP: transport cases apply to https:// Connectors only';

/** Errors that say the Connector was not reached at all, as opposed to a refused handshake. */
const UNREACHABLE = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|ETIMEDOUT|aborted|timeout/i;

/** One request on its own connection, within the run's deadline and answer size limit (a flood is cut, not read). */
function request(url: URL, headers: Record<string, string>, tls: https.RequestOptions, limits: { deadlineMs: number; maxResponseBytes: number }): Promise<Answer & { latencyMs: number }> {
  const started = performance.now();
  const done = (answer: Omit<Answer, 'at' | 'json'>) => ({ ...answer, json: undefined, at: Date.now(), latencyMs: Math.round(performance.now() - started) });
  return new Promise((resolve) => {
    const req = https.request(url, { method: 'GET', headers, agent: false, ...tls, signal: AbortSignal.timeout(limits.deadlineMs) }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= limits.maxResponseBytes) chunks.push(chunk);
        else {
          resolve(done({ status: null, headers: {}, body: '', error: `body limit: more than ${limits.maxResponseBytes} bytes` }));
          req.destroy();
        }
      });
      res.on('end', () => resolve(done({ status: res.statusCode ?? null, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), error: null })));
      res.on('error', (error) => resolve(done({ status: null, headers: {}, body: '', error: `${(error as NodeJS.ErrnoException).code ?? 'ERROR'}: ${error.message}` })));
    });
    req.on('error', (error) => resolve(done({ status: null, headers: {}, body: '', error: `${(error as NodeJS.ErrnoException).code ?? 'ERROR'}: ${error.message}` })));
    req.end();
  });
}

/** PASSED when the TLS layer or the Connector refuses the connection; FAILED when the pull is served. */
export async function expectRefusedConnection(context: CaseContext, tls: https.RequestOptions, label: string, misbehaviour: string): Promise<Judgement> {
  const { probe } = context;
  if (!probe.target.baseUrl.startsWith('https:')) return skipped(PLAIN_HTTP);
  const prepared = await probe.pull({ status: context.pullStatus, limit: '1', offset: EPOCH });
  const answer = probe.explained(await request(prepared.url, prepared.headers, { ca: probe.target.tls.ca, ...tls }, probe));
  probe.recordRaw({ method: 'GET', url: prepared.url.toString(), headers: prepared.headers, answer: { ...answer, headers: answer.headers } }, label, misbehaviour);
  if (answer.status === null) {
    if (answer.error?.startsWith('body limit')) return failed(`the pull was answered with ${answer.error}`);
    if (UNREACHABLE.test(answer.error ?? '')) return failed(`the Connector could not be reached: ${answer.error}`);
    return passed(`the connection was refused: ${answer.error}`);
  }
  if (answer.status >= 400 && answer.status < 500) return passed(`the request was refused: ${describeAnswer(answer)}`);
  return failed(`the pull was answered ${describeAnswer(answer)}`);
}
