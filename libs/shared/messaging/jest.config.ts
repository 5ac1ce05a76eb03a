import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('shared-messaging', __dirname, { needsInfrastructure: true });
