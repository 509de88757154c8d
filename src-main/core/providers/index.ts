export * from './profiles';
export * from './connection';
export * from './test-connection';
export * from './detect';
export * from './context-window';
