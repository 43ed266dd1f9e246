// Item 5: jose fetches the Bank's JWKS and imports every key in it.
import { createRemoteJWKSet, importJWK } from 'jose';
import { attempt, need, run } from './kit.mjs';

run(async () => {
  const set = createRemoteJWKSet(new URL('/.well-known/jwks.json', need('BANK_URL')));
  await set.reload();
  const { keys } = set.jwks();
  const imported = await Promise.all(
    keys.map((jwk) =>
      attempt(async () => {
        const key = await importJWK(jwk, jwk.alg);
        return { kid: jwk.kid, type: key.type, algorithm: key.algorithm };
      }),
    ),
  );
  return { keys, imported };
});
