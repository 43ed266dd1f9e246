// Reads the body as raw bytes, up to the limit: signatures are checked over exactly these bytes.
import type { IncomingMessage } from 'node:http';
import { ProblemError } from './problems';

export async function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw new ProblemError('body_too_large', `Content-Length ${declared} exceeds the ${limit}-byte limit`, { headers: { Connection: 'close' } });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      throw new ProblemError('body_too_large', `the body exceeds the ${limit}-byte limit`, { headers: { Connection: 'close' } });
    }
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}
