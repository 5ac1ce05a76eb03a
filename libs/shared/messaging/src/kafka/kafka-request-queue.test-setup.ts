import { fixKafkajsRequestQueueIdleTimer } from './kafka-request-queue';

// A jest setup file of the end-to-end specs (apps/system-e2e/jest.config.ts), which read topics
// with kafkajs directly (apps/system-e2e/src/topic-envelopes.ts and the like): they get the fix
// of kafkajs's idle request-queue timer the services' adapter carries. Without it each of their
// broker connections printed a TimeoutNegativeWarning into the test output.
fixKafkajsRequestQueueIdleTimer();
