import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('payments-infrastructure', __dirname, { needsInfrastructure: true });
