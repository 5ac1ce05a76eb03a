import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('shared-command-handling', __dirname, { needsInfrastructure: true });
