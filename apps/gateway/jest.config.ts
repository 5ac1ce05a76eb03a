import { projectJestConfig } from '../../jest.preset';

export default projectJestConfig('gateway', __dirname);
