import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('shared-health', __dirname, { needsInfrastructure: true });
