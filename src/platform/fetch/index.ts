export { createSafeFetcher, withLocalFiles } from './safe-fetch.js';
export type { DownloadedFile, LocalFile, LocalFileOpener, FetchedFile, FetchLog, FetchRequest, Resolver, SafeFetcher, SafeFetchOptions } from './safe-fetch.js';
export { SNIFF_BYTES, sniffMedia } from './sniff.js';
export type { MediaKind, SniffedMedia } from './sniff.js';
export { ByteBudget } from './budget.js';
export type { DownloadBudget } from './budget.js';
