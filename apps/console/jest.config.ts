import { projectJestConfig } from '../../jest.preset';

export default projectJestConfig('console', __dirname);
