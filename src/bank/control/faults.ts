// Control plane: a client's fault profile (conformance.md section 4). PUT stores it (schemas/control/faults.schema.json,
// a PUT replaces the whole profile), GET shows it (all zeros and `active: false` when the client has none),
// DELETE removes it. The decisions and where they apply are application/fault-profiles and domain/faults.
import { FaultProfile, NO_FAULTS } from '../domain/faults';
import { StoredProfile } from '../application/fault-profiles';
import { ControlArea } from './index';
import { controlBody, instant, parseQuery } from './http';

/** The profile in force for a client, as GET and PUT answer it. */
export function faultProfileView(clientId: string, stored: StoredProfile | null) {
  const profile: FaultProfile = stored?.profile ?? NO_FAULTS;
  return {
    client_id: clientId,
    active: stored !== null,
    duplicate_rate: profile.duplicate_rate,
    reorder_rate: profile.reorder_rate,
    delay_ms: profile.delay_ms,
    drop_rate: profile.drop_rate,
    bad_signature_rate: profile.bad_signature_rate,
    conflicting_final_rate: profile.conflicting_final_rate,
    status_429_rate: profile.status_429_rate,
    seed: profile.seed,
    updated_at: instant(stored?.updatedAt ?? null),
  };
}

export const faultsArea: ControlArea = (router, deps) => {
  const path = '/clients/:clientId/faults';

  router.put(path, (req, res) => {
    parseQuery(req, {});
    const clientId = deps.clients.get(req.params.clientId).id; // 404 before the body is judged
    const stored = deps.faults.set(clientId, controlBody<Partial<FaultProfile>>(req, 'faults'));
    res.json(faultProfileView(clientId, stored));
  });

  router.get(path, (req, res) => {
    parseQuery(req, {});
    const clientId = deps.clients.get(req.params.clientId).id;
    res.json(faultProfileView(clientId, deps.faults.get(clientId)));
  });

  router.delete(path, (req, res) => {
    parseQuery(req, {});
    const clientId = deps.clients.get(req.params.clientId).id;
    deps.faults.clear(clientId);
    res.status(204).end();
  });
};
