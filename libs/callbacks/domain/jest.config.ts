import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('callbacks-domain', __dirname);
