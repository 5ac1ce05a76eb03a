import { projectJestConfig } from '../../jest.preset';

export default projectJestConfig('sdk', __dirname);
