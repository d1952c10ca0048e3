export { ServiceToken } from './token';
export { loadClientConfig, clientConfigFrom, parseServiceAddress, DEFAULT_SERVICE_ADDR } from './config';
export type { ConnectionSettings, SettingNames, ClientConfig, ClientConfigError, ClientConfigErrorCode, ClientConfigResult, TlsSettings } from './config';
export { ServiceClientError, codeForStatus, runFailureHeadline, runFailureMessage } from './errors';
export type { ServiceClientErrorCode, RunFailureCause } from './errors';
export { SecretScrubber, scrubSecrets } from './secret-scrubber';
export { MAX_REDIRECTS } from './redirects';
export { RequestBudget, RequestBudgets, serverOf } from './request-budget';
export { SharedPools } from './shared-pools';
export { RunDeadline, DEFAULT_RUN_TIMEOUT_MS } from './run-deadline';
export { DEFAULT_RETRY_POLICY, decideRetry, parseRetryAfterMs, backoffDelayMs, isRepeatable } from './retry';
export type { RetryPolicy, RetryDecision } from './retry';
export { isEnvelope, objectFromBody, listFromBody } from './response-shapes';
export type { JsonObject } from './response-shapes';
export { ServiceClient, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_RESPONSE_BYTES } from './service-client';
export type {
  ServiceClientOptions,
  RequestOptions,
  WriteOptions,
  ServiceResult,
  ServiceSuccess,
  ServiceFailure,
  ReadResult,
  ClientStats,
  Query,
} from './service-client';
export { confirmService, notTheServiceMessage, recordServiceAnswer, SERVICE_IDENTITY_PATH } from './service-identity';
export type { ServiceIdentity, UnprovenAbsence } from './service-identity';
