import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('payments-domain', __dirname);
