// Signing keys a run makes for itself: a rotated Bank key to publish, and a key in no JWKS.
import { generateSigningJwk, SigningKey, signingKeyFromJwk } from '../../wire/keys';

export async function freshSigningKey(): Promise<SigningKey> {
  return signingKeyFromJwk(await generateSigningJwk());
}
