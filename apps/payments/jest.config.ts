import { projectJestConfig } from '../../jest.preset';

export default projectJestConfig('payments', __dirname);
