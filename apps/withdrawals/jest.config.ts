import { projectJestConfig } from '../../jest.preset';

export default projectJestConfig('withdrawals', __dirname);
