import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('ledger-infrastructure', __dirname, { needsInfrastructure: true });
