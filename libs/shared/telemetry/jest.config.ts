import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('shared-telemetry', __dirname, { needsInfrastructure: true });
