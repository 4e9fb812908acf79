export * from './crd.js';
export * from './names.js';
export * from './quantity.js';
export * from './schema.js';
export * from './types.js';
export * from './validation.js';
export * from './live.js';
export * from './controlplane.js';
