import { join } from 'node:path';
import { projectJestConfig } from '../../jest.preset';

const config = projectJestConfig('system-e2e', __dirname, { needsInfrastructure: true });

/**
 * These specs read topics with kafkajs directly (src/topic-envelopes.ts and the like), so they
 * get the adapter's fix of kafkajs's idle request-queue timer as a setup file (by path: an e2e
 * project may not import the messaging library). Only here: the messaging library's own specs
 * check that the adapter applies it.
 */
export default {
  ...config,
  setupFilesAfterEnv: [...(config.setupFilesAfterEnv ?? []), join(__dirname, '../../libs/shared/messaging/src/kafka/kafka-request-queue.test-setup.ts')],
};
