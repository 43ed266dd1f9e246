// Item 4: a Connector verifies what the Bank sent it (callbacks, and the pull) with jose alone: it rebuilds the
// signature base from the raw request, reattaches it as the JWS payload and runs flattenedVerify with the Bank's
// JWKS fetched by createRemoteJWKSet. It also checks the RFC 9530 Content-Digest header against the body bytes.
// REQUESTS_FILE: a JSON array of {method, url, headers (lower-case names), body_b64} as received.
import { readFileSync } from 'node:fs';
import { base64url, createRemoteJWKSet, flattenedVerify } from 'jose';
import { attempt, contentDigest, need, run, signatureBase } from './kit.mjs';

run(async () => {
  const jwks = createRemoteJWKSet(new URL('/.well-known/jwks.json', need('BANK_URL')));
  const requests = JSON.parse(readFileSync(need('REQUESTS_FILE'), 'utf8'));
  const verified = [];
  for (const { method, url, headers, body_b64: bodyB64 } of requests) {
    const body = Buffer.from(bodyB64, 'base64');
    const flow = method === 'GET' && url.split('?')[0] === '/payment-orders' ? 'pull' : 'callback';
    const signature = await attempt(async () => {
      const [protectedHeader, payload, sig] = String(headers['x-signature'] ?? '').split('.');
      if (payload !== '') throw new Error(`X-Signature is not a detached-payload JWS: ${headers['x-signature']}`);
      const base = signatureBase(flow, { method, target: url, headers, body });
      const result = await flattenedVerify({ protected: protectedHeader, payload: base64url.encode(base), signature: sig }, jwks);
      return { protectedHeader: result.protectedHeader };
    });
    verified.push({
      method,
      url,
      flow,
      body: body.length ? JSON.parse(body.toString('utf8')) : null,
      signature,
      content_digest: { header: headers['content-digest'] ?? null, of_body: contentDigest(body) },
    });
  }
  return { verified };
});
