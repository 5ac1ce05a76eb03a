export { rawRequest, signRequest, SignedClient, specSignedPath, type MerchantCredentialsForTest, type SignedRequest, type TestResponse } from './signed-client';
export { freePort, SystemUnderTest, type InstanceName, type ServiceName, type SystemOptions } from './system-under-test';
