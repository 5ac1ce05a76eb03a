import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('disputes-infrastructure', __dirname, { needsInfrastructure: true });
