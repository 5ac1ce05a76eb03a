import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('withdrawals-infrastructure', __dirname, { needsInfrastructure: true });
