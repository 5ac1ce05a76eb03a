import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('gateway-api', __dirname);
