import { projectJestConfig } from '../../jest.preset';

export default projectJestConfig('system-e2e', __dirname, { needsInfrastructure: true });
