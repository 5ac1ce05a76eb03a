import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('shared-metrics', __dirname, { needsInfrastructure: true });
