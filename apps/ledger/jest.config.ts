import { projectJestConfig } from '../../jest.preset';

export default projectJestConfig('ledger', __dirname);
