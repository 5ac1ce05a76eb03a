import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('shared-service-auth', __dirname);
