// Control plane, section 3: per-client test clocks. Business times of a clocked client move only when told;
// security (X-Timestamp, nonces, DPoP, tokens) stays on the Bank's clock.
import { ProblemError } from '../../wire/problems';
import { parseInstant } from '../../wire/rfc3339';
import { ClockBackwardsError, ClockView } from '../application/test-clocks';
import { ControlArea, ControlDeps } from './index';
import { controlBody, parseQuery, requestLog } from './http';

/** Clocks belong to registered clients (with or without a Connector). */
function knownClient(deps: ControlDeps, clientId: string): string {
  if (!deps.registry.find(clientId)) throw new ProblemError('not_found', `no client ${clientId}`);
  return clientId;
}

function attachedClock(deps: ControlDeps, clientId: string): ClockView {
  const view = deps.testClocks.view(clientId);
  if (!view) throw new ProblemError('not_found', `client ${clientId} has no test clock; POST /sandbox/clients/${clientId}/clock attaches one`);
  return view;
}

function backwards(error: unknown): never {
  if (error instanceof ClockBackwardsError) throw new ProblemError('clock_backwards', error.message);
  throw error;
}

export const clockArea: ControlArea = (router, deps) => {
  router.post('/clients/:id/clock', async (req, res) => {
    parseQuery(req, {});
    const clientId = knownClient(deps, req.params.id);
    const body = controlBody<{ frozen_at?: string }>(req, 'clock-attach');
    const frozenAt = body.frozen_at === undefined ? undefined : parseInstant(body.frozen_at);
    if (frozenAt === null) throw new ProblemError('body_invalid', 'frozen_at must be an RFC 3339 UTC instant', { errors: [{ path: '/frozen_at', message: 'must be an RFC 3339 UTC instant ending in Z' }] });
    let view: ClockView;
    try {
      // Waits for an advance under way: it is checked against (and never set back by) where that advance ends.
      view = await deps.testClocks.attach(clientId, frozenAt);
    } catch (error) {
      backwards(error);
    }
    requestLog(deps.logger, res).info('test clock attached', { client_id: clientId, now: view.now });
    res.status(201).json(view);
  });
  router.get('/clients/:id/clock', (req, res) => {
    parseQuery(req, {});
    res.json(attachedClock(deps, knownClient(deps, req.params.id)));
  });
  router.delete('/clients/:id/clock', async (req, res) => {
    parseQuery(req, {});
    const clientId = knownClient(deps, req.params.id);
    attachedClock(deps, clientId);
    // Waits for an advance under way, and answers the clock where that advance left it.
    const view = await deps.testClocks.detach(clientId);
    if (!view) throw new ProblemError('not_found', `client ${clientId} has no test clock`);
    requestLog(deps.logger, res).info('test clock detached', { client_id: clientId, was: view.now });
    res.json({ ...view, detached: true });
  });
  router.post('/clients/:id/clock/advance', async (req, res) => {
    parseQuery(req, {});
    const clientId = knownClient(deps, req.params.id);
    attachedClock(deps, clientId);
    const body = controlBody<{ seconds?: number; to?: string }>(req, 'clock-advance');
    const target = body.to !== undefined ? parseInstant(body.to) : undefined;
    if (target === null) throw new ProblemError('body_invalid', 'to must be an RFC 3339 UTC instant', { errors: [{ path: '/to', message: 'must be an RFC 3339 UTC instant ending in Z' }] });
    try {
      // `seconds` counts from where the clock stands when this advance's turn comes (after an unfinished one).
      const report = await (target === undefined ? deps.testClocks.advanceBy(clientId, Math.round((body.seconds ?? 0) * 1000)) : deps.testClocks.advance(clientId, target));
      requestLog(deps.logger, res).info('test clock advanced', { client_id: clientId, from: report.from, to: report.to, fired: report.fired.length });
      res.json(report);
    } catch (error) {
      backwards(error);
    }
  });
};
