import { projectJestConfig } from '../../../jest.preset';

// Integration specs (*.int.spec.ts: the rate limit's leases) need the real PostgreSQL.
export default projectJestConfig('gateway-api', __dirname, { needsInfrastructure: true });
