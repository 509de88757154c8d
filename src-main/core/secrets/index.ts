export * from './store';
export * from './keychain';
export * from './api-key';
export * from './redact';
export * from './safe-storage';
