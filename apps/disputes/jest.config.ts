import { projectJestConfig } from '../../jest.preset';

export default projectJestConfig('disputes', __dirname);
