import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('shared-util-errors', __dirname);
