import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('callbacks-infrastructure', __dirname, { needsInfrastructure: true });
