import { AGENTURN_ERROR_CODES } from '@novelrag/agenturn';
import { ErrorCode } from '@novelrag/contracts';

// agenturn may not import contracts (module boundaries), so it carries its own copy of the wire code list.
describe('error code lists', () => {
  it('agenturn and contracts know the same codes', () => {
    expect([...AGENTURN_ERROR_CODES].sort()).toEqual([...ErrorCode.options].sort());
  });
});
