import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('shared-util-config', __dirname);
