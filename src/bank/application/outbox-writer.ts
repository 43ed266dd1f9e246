// The transactional outbox, seen from where a status changes: the order book hands every change to record(),
// inside the transaction that writes the order, so a status change and its outgoing message commit together
// or not at all. Delivery (freezing messages, sending, retrying) is CallbackMessages' and the dispatcher's job.
import { reportCopies } from '../domain/callbacks';
import { Order } from '../domain/order';
import { StatusChange } from '../domain/order-state';
import { OutboxRepository } from '../store/outbox';
import { ClientClocks } from './clocks';

export class OutboxWriter {
  private readonly queuedListeners: (() => void)[] = [];

  /** `reportsTo`: whether a client has a Connector to call back; nobody else gets messages. */
  constructor(
    private readonly outbox: OutboxRepository,
    private readonly clocks: ClientClocks,
    private readonly reportPending: boolean,
    private readonly reportsTo: (clientId: string) => boolean,
  ) {}

  /** Told after a message is queued (the dispatcher wakes up); runs inside the transaction, so keep it cheap. */
  onQueued(listener: () => void): void {
    this.queuedListeners.push(listener);
  }

  /** Queues the report of `change` for `order`, if the scenario and the settings ask for one. Call inside the change's transaction. */
  record(order: Order, change: StatusChange): void {
    if (!this.reportsTo(order.clientId)) return;
    const copies = reportCopies(order, change, this.reportPending);
    if (copies === 0) return;
    this.outbox.enqueue({
      clientId: order.clientId,
      reference: order.reference,
      bankReference: order.bankReference,
      status: change.to,
      reasonCode: change.reasonCode,
      reasonMessage: change.reasonMessage,
      processedAt: change.at,
      copies,
      createdAt: this.clocks.now(order.clientId),
      firstReport: change.from === null ? 1 : 0,
    });
    for (const listener of this.queuedListeners) listener();
  }
}
