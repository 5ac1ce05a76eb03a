export * from './ledger-test-service';
