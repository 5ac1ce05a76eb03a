import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('shared-util-money', __dirname);
