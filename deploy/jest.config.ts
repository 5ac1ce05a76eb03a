import { projectJestConfig } from '../jest.preset';

/** The service catalog's drift checks (deploy/catalog); they read code and need no Kafka or PostgreSQL. */
export default projectJestConfig('deploy', __dirname, { specs: ['<rootDir>/**/*'] });
