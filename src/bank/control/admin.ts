// /sandbox needs Authorization: Bearer <ADMIN_TOKEN>; without ADMIN_TOKEN it is open in relaxed mode only.
import type { NextFunction, Request, Response } from 'express';
import { BankConfig } from '../config';
import { ProblemError } from '../../wire/problems';
import { sameSecret } from '../../wire/secrets';

export function requireAdmin(config: BankConfig) {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!config.adminToken) {
      if (config.sandboxMode === 'relaxed') return next();
      throw new ProblemError('auth_invalid', '/sandbox endpoints are disabled: set ADMIN_TOKEN, or run with SANDBOX_MODE=relaxed', { extensions: { reason: 'admin_disabled' } });
    }
    const header = req.headers.authorization;
    if (!header) throw new ProblemError('auth_missing', 'send Authorization: Bearer <ADMIN_TOKEN>');
    const match = /^Bearer (\S+)$/i.exec(header);
    if (!match || !sameSecret(match[1], config.adminToken)) throw new ProblemError('auth_invalid', 'the admin token is not valid', { extensions: { reason: 'admin_token' } });
    next();
  };
}
