export { createSafeFetcher, withLocalFiles } from './safe-fetch.js';
export type { DownloadedFile, LocalFileReader, FetchedFile, FetchLog, FetchRequest, Resolver, SafeFetcher, SafeFetchOptions } from './safe-fetch.js';
export { sniffMedia } from './sniff.js';
export type { MediaKind, SniffedMedia } from './sniff.js';
