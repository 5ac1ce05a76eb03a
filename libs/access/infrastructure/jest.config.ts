import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('access-infrastructure', __dirname, { needsInfrastructure: true });
