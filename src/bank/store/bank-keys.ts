// The Bank's own signing keys, persisted so a restart keeps the same kid.
import { Db } from './db';
import { PublicJwk } from '../../wire/keys';

export class BankKeyRepository {
  constructor(private readonly db: Db) {}

  active(): PublicJwk | undefined {
    const row = this.db.prepare('SELECT private_jwk FROM bank_keys WHERE active = 1 ORDER BY created_at LIMIT 1').pluck().get() as
      | string
      | undefined;
    return row === undefined ? undefined : (JSON.parse(row) as PublicJwk);
  }

  save(jwk: PublicJwk, nowMs: number): void {
    this.db.prepare('INSERT INTO bank_keys (kid, private_jwk, active, created_at) VALUES (?, ?, 1, ?)').run(jwk.kid, JSON.stringify(jwk), nowMs);
  }
}
