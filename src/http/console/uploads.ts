import { buffer } from 'node:stream/consumers';
import { GatewayError } from '../../errors.js';
import { sniffMedia } from '../../platform/fetch/index.js';
import type { Stores } from '../../platform/store/index.js';

/** Long enough for one try of the slowest operation; the console deletes its upload as soon as the try ends. */
export const UPLOAD_TTL_SECONDS = 15 * 60;

export interface Upload {
  /** The gateway's own signed link to the file, as the operation receives it. */
  fileUrl: string;
  /** The same link as a path, for the browser (which may reach the gateway by another name than PUBLIC_BASE_URL). */
  path: string;
  token: string;
}

/**
 * Files an operator uploads in the console to try an operation: short-lived blobs behind the
 * gateway's own signed links. Only links to blobs stored here are recognised (`read`), so the
 * operations read them from the store, never through the network; every other URL is fetched
 * as before. Nothing of an upload is logged.
 */
export class ConsoleUploads {
  /** Blob key → when its link expires (ms): what is past it is forgotten at the next upload. */
  private readonly keys = new Map<string, number>();
  private readonly filesPrefix: string;

  constructor(
    private readonly stores: Pick<Stores, 'blobs' | 'fileUrls'>,
    publicBaseUrl: string,
  ) {
    this.filesPrefix = `${publicBaseUrl.replace(/\/+$/, '')}/files/`;
  }

  async put(bytes: Buffer): Promise<Upload> {
    const media = sniffMedia(bytes);
    if (!media) throw new GatewayError('unsupported_media', 'the upload is not an image, PDF or recording the gateway reads');
    const blob = await this.stores.blobs.put(bytes, { contentType: media.mediaType, ttlSeconds: UPLOAD_TTL_SECONDS });
    this.forgetExpired(Date.now());
    this.keys.set(blob.key, blob.expiresAt.getTime());
    const fileUrl = this.stores.fileUrls.urlFor(blob.key, UPLOAD_TTL_SECONDS);
    const token = fileUrl.slice(this.filesPrefix.length);
    return { fileUrl, path: `/files/${token}`, token };
  }

  /** The bytes behind one of this store's upload links; undefined for any other URL. */
  read = async (url: string): Promise<Buffer | undefined> => {
    const key = this.keyOf(url.startsWith(this.filesPrefix) ? url.slice(this.filesPrefix.length) : undefined);
    if (key === undefined) return undefined;
    const blob = await this.stores.blobs.open(key);
    if (!blob) throw new GatewayError('not_found', 'the uploaded file is gone (deleted or expired); upload it again');
    return buffer(blob.stream);
  };

  async delete(token: string): Promise<void> {
    const key = this.keyOf(token);
    if (key === undefined) throw new GatewayError('not_found', 'no console upload behind this link');
    this.keys.delete(key);
    await this.stores.blobs.delete(key);
  }

  private forgetExpired(now: number): void {
    for (const [key, expiresAt] of this.keys) if (expiresAt <= now) this.keys.delete(key);
  }

  private keyOf(token: string | undefined): string | undefined {
    if (token === undefined) return undefined;
    try {
      const key = this.stores.fileUrls.verify(token);
      return this.keys.has(key) ? key : undefined;
    } catch {
      return undefined;
    }
  }
}
