import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('withdrawals-domain', __dirname);
