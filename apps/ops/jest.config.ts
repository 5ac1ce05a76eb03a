import { projectJestConfig } from '../../jest.preset';

export default projectJestConfig('ops', __dirname, { needsInfrastructure: true });
