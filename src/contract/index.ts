export * from './limits.js';
export * from './common.js';
export * from './speech.js';
export * from './advice.js';
export * from './case-files.js';
export * from './asr.js';
export * from './errors.js';
export * from './operations.js';
