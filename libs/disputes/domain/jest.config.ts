import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('disputes-domain', __dirname);
