import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('shared-testing', __dirname);
