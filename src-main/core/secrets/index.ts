export * from './conversations';
export * from './keychain';
export * from './api-key';
export * from './redact';
