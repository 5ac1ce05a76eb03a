import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('access-domain', __dirname);
