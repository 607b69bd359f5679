import type { ErrorKind } from '../errors.js';
import type { DocumentLimits, DocumentPage, PageOptions } from './types.js';

/** What the PDF reader's process is sent first: the file and the limits it is read under. */
export interface PdfWorkerData {
  bytes: Uint8Array;
  limits: DocumentLimits;
}

export interface PageRequest {
  id: number;
  index: number;
  options?: PageOptions;
}

/** A failure as it crosses the thread: a GatewayError's kind, message and retryable, or only a message. */
export interface WireError {
  kind?: ErrorKind;
  message: string;
  retryable?: boolean;
}

export type PdfReply =
  | { type: 'ready' }
  | { type: 'opened'; pageCount: number }
  | { type: 'failed'; error: WireError }
  | { type: 'page'; id: number; page: DocumentPage }
  | { type: 'pageFailed'; id: number; error: WireError };
