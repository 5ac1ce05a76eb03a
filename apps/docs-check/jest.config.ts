import { projectJestConfig } from '../../jest.preset';

/** Checks the merchant documentation in docs/ and README.md; needs no Kafka or PostgreSQL. */
export default projectJestConfig('docs-check', __dirname);
