// Step 3: X-Client-Id names a registered client.
import { ProblemError } from '../../../wire/problems';
import { Step } from '../exchange';

export const checkClient: Step = (exchange, services) => {
  const clientId = exchange.header('x-client-id') ?? '';
  const client = services.registry.find(clientId);
  if (!client) throw new ProblemError('client_unknown', `no client "${clientId}" is registered`);
  exchange.client = client;
};
