export * from './callbacks-test-kit';
