// The control plane (/sandbox) with what only it uses (order queries, reset, run-time client registrations and
// their certificates), built by bank.ts on the first /sandbox request: these modules load then, not at every start
// of the Bank (issue 15).
import type express from 'express';
import { ClientRegistrationDeps, ClientRegistrations } from './application/client-registrations';
import { ClientClocks } from './application/clocks';
import { OrderQueries } from './application/order-queries';
import { ResetStore } from './application/reset';
import { controlPlane, ControlDeps } from './control';
import { ClientCertificates, devPkiOf } from './security/client-certificates';
import { Db } from './store/db';
import { OrderRepository } from './store/orders';
import { OutboxRepository } from './store/outbox';
import { ResetRepository } from './store/reset';

export interface ControlWiring extends Omit<ControlDeps, 'queries' | 'reset' | 'clients'> {
  db: Db;
  orders: OrderRepository;
  outbox: OutboxRepository;
  clocks: ClientClocks;
  clientRegistrations: Omit<ClientRegistrationDeps, 'certificates' | 'config' | 'registry' | 'connectors' | 'logger' | 'faults' | 'testClocks' | 'pauses'>;
}

export function sandboxRouter(wiring: ControlWiring): express.Router {
  const { db, orders, outbox, clocks, clientRegistrations, ...deps } = wiring;
  const { config } = deps;
  return controlPlane({
    ...deps,
    queries: new OrderQueries(orders, outbox),
    reset: new ResetStore(db, new ResetRepository(db), clocks, deps.faults),
    clients: new ClientRegistrations({
      ...clientRegistrations,
      config, registry: deps.registry, connectors: deps.connectors, logger: deps.logger, faults: deps.faults, testClocks: deps.testClocks, pauses: deps.pauses,
      certificates: new ClientCertificates({ pki: devPkiOf(config), bankClientId: config.bankClientId, serverNames: config.tlsServerNames }),
    }),
  });
}
