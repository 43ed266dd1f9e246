// Item 6: reverse polling over the Bank's HTTPS listener with the dev PKI client certificate, in a
// node:https Agent; and the same call without a certificate. Token and create go over HTTPS too, with
// oauth4webapi and global fetch trusting the sandbox CA through NODE_EXTRA_CA_CERTS (no insecure flags).
// BANK_URL is the https:// listener; CA_FILE, CLIENT_CERT_FILE, CLIENT_KEY_FILE the dev PKI files; ORDER a
// payment order whose scenario keeps it PENDING.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import * as oauth from 'oauth4webapi';
import { attempt, capture, connector, need, requestToken, run, signedHeaders, statusTarget } from './kit.mjs';

function get(url, headers, agent) {
  return new Promise((resolve, reject) => {
    https
      .get(url, { headers, agent }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const headers = new Headers(Object.entries(res.headers).map(([name, value]) => [name, String(value)]));
          resolve(capture(new Response(Buffer.concat(chunks), { status: res.statusCode, headers })));
        });
      })
      .on('error', reject);
  });
}

run(async () => {
  const settings = connector();
  const { bankUrl, clientId, clientSecret } = settings;
  const ca = readFileSync(need('CA_FILE'));
  const order = JSON.parse(need('ORDER'));
  const body = JSON.stringify(order);

  const { access_token: token } = await requestToken(bankUrl, clientId, oauth.ClientSecretBasic(clientSecret));
  const created = await attempt(async () => {
    const headers = { ...(await signedHeaders('create', 'POST', '/payment-orders', body, settings)), authorization: `Bearer ${token}` };
    return capture(await fetch(new URL('/payment-orders', bankUrl), { method: 'POST', headers, body }));
  });
  const poll = (agent) =>
    attempt(async () => {
      const target = statusTarget(order.reference);
      const headers = { ...(await signedHeaders('status', 'GET', target, '', settings)), authorization: `Bearer ${token}` };
      return get(new URL(target, bankUrl), headers, agent);
    });

  const withCertificate = new https.Agent({ ca, cert: readFileSync(need('CLIENT_CERT_FILE')), key: readFileSync(need('CLIENT_KEY_FILE')) });
  const withoutCertificate = new https.Agent({ ca });
  return {
    create: created,
    with_certificate: await poll(withCertificate),
    without_certificate: await poll(withoutCertificate),
  };
});
