import { projectJestConfig } from '../jest.preset';

/** Unit tests of the benchmark harness's pure parts; the benchmark itself runs with `npm run bench`. */
export default projectJestConfig('bench', __dirname);
