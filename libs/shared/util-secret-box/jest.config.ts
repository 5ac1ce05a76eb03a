import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('shared-util-secret-box', __dirname);
