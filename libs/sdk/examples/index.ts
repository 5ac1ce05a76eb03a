// The integration guide's examples (docs/api/integration-guide.md includes each file verbatim), for the SDK's e2e spec to run.
export * from './callbacks';
export * from './create-pay-in';
export * from './disputes';
export * from './methods';
export * from './payouts';
export * from './setup';
export * from './status-and-lists';
export * from './withdrawals';
