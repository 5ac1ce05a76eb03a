export { CHROMIUM_PATH, launchBrowser, openPhonePage, PHONE_VIEWPORT, saveScreenshot } from './browser';
export { rawRequest, SignedClient, type MerchantCredentialsForTest, type SignedRequest, type TestResponse } from './signed-client';
export {
  builtEntryPoint,
  CATALOG_SERVICE_NAMES,
  freePort,
  requiredEnv,
  runLedgerAudit,
  sourceEntryPoint,
  testKafkaBrokers,
  SystemUnderTest,
  TEST_MERCHANT_DEFAULT_CALLBACK_URL,
  type InstanceName,
  type ServiceName,
  type SystemOptions,
} from './system-under-test';
export { workspaceRoot } from './workspace-root';
export { BackofficeClient, createOperator, registerAgent, type RegisteredAgent } from './backoffice-client';
export { SecuredKafka } from './secured-kafka';
export { merchantApiValidator, OpenApiResponseValidator, toJsonSchema, type AnswerToValidate, type OpenApiDocument } from './openapi-response-validator';
export { eventually } from './eventually';
export { CallbackReceiver, type CallbackBodyShape, type CallbackReceiverOptions, type ReceivedCallback, type ReceiverAnswer } from './callback-receiver';
