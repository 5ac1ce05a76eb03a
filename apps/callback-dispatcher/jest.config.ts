import { projectJestConfig } from '../../jest.preset';

export default projectJestConfig('callback-dispatcher', __dirname);
