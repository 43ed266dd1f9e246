import { Bank } from '../../src/bank/bank';
import { DemoClient, sampleOrder, startBank } from '../helpers/bank';

describe('create and reverse polling (relaxed mode, plain HTTP)', () => {
  let bank: Bank;
  let client: DemoClient;

  beforeAll(async () => {
    bank = await startBank({ sandboxMode: 'relaxed' });
    client = new DemoClient(bank);
  });
  afterAll(() => bank.close());

  it('creates an order with a signed request and reads its status back', async () => {
    const order = sampleOrder();
    const created = await client.create(order);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ status: 'SUCCESS', reference: order.reference });
    const status = await client.status(order.reference as string);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ reference: order.reference, status: 'SUCCESS', bank_reference: created.body.bank_reference });
  });
});
