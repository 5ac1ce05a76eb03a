import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('ledger-domain', __dirname);
