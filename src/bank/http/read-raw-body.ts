// Reads the body as raw bytes, up to the limit: signatures are checked over exactly these bytes.
import type { IncomingMessage } from 'node:http';
import { ProblemError } from '../../wire/problems';

const EMPTY = Buffer.alloc(0);

function tooLarge(req: IncomingMessage, detail: string): ProblemError {
  req.resume();
  return new ProblemError('body_too_large', detail, { headers: { Connection: 'close' } });
}

export function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> | Buffer {
  const length = req.headers['content-length'];
  // HTTP/1.1: no Content-Length and no Transfer-Encoding means no body (the usual GET); nothing to wait for.
  if (length === undefined && req.headers['transfer-encoding'] === undefined) return EMPTY;
  const declared = Number(length);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(req, `Content-Length ${declared} exceeds the ${limit}-byte limit`);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        reject(tooLarge(req, `the body exceeds the ${limit}-byte limit`));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : chunks.length === 0 ? EMPTY : Buffer.concat(chunks, size)));
    // A client that goes away mid-body is a client problem, not a Bank failure: no error-level log, no 500.
    const cutOff = () => reject(new ProblemError('body_malformed', 'the connection closed before the body was complete'));
    req.once('error', cutOff);
    req.once('aborted', cutOff);
  });
}
