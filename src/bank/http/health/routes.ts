// /healthz: the process is up. /readyz: the DB answers, migrations are applied and the Bank keys are loaded.
import type express from 'express';
import { PROBLEM_CONTENT_TYPE } from '../../../wire/problems';

export type ReadinessProbe = () => { ready: boolean; checks: Record<string, boolean | string | number> };

export function healthRoutes(app: express.Express, readiness: ReadinessProbe): void {
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (req, res) => {
    const { ready, checks } = readiness();
    if (ready) {
      res.json({ status: 'ready', checks });
      return;
    }
    res.status(503).type(PROBLEM_CONTENT_TYPE).send(
      JSON.stringify({
        type: 'urn:sandbox-bank:problem:not_ready',
        title: 'Not ready',
        status: 503,
        detail: 'one or more readiness checks failed',
        instance: req.path,
        code: 'not_ready',
        request_id: res.locals.requestId,
        checks,
      }),
    );
  });
}
