import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { GatewayError } from '../../errors.js';
import { SNIFF_BYTES, sniffMedia, type DownloadBudget, type LocalFile, type MediaKind, type SniffedMedia } from '../../platform/fetch/index.js';
import type { Stores } from '../../platform/store/index.js';
import { withTempDir } from '../../platform/temp.js';

/** Long enough for one try of the slowest operation; the console deletes its upload as soon as the try ends. */
export const UPLOAD_TTL_SECONDS = 15 * 60;

export interface Upload {
  /** The gateway's own signed link to the file, as the operation receives it. */
  fileUrl: string;
  /** The same link as a path, for the browser (which may reach the gateway by another name than PUBLIC_BASE_URL). */
  path: string;
  token: string;
}

/** The byte limits of fetched files, by kind: `FETCH_MAX_BYTES` for images and PDFs, `ASR_MAX_BYTES` for recordings. */
export type UploadLimits = Record<MediaKind, number>;

/**
 * Files an operator uploads in the console to try an operation: short-lived blobs behind the
 * gateway's own signed links. Only links to blobs stored here are recognised (`open`), so the
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
    private readonly limits: UploadLimits,
    /** Shared with the downloads: a body being received is held in TMPDIR (a RAM tmpfs in the container). */
    private readonly budget: DownloadBudget,
  ) {
    this.filesPrefix = `${publicBaseUrl.replace(/\/+$/, '')}/files/`;
  }

  /**
   * Receives an upload as it streams in, into a private temp folder (deleted after), under the
   * byte limit of its kind as fetched files are, then stores it; it is never held in memory
   * whole. `declaredBytes` (Content-Length) over the limit is refused before reading; the body is
   * left unread when refused, for the caller to drop.
   */
  async receive(body: Readable, declaredBytes: number | undefined, signal: AbortSignal): Promise<Upload> {
    const largest = this.limitOf(undefined);
    if (declaredBytes !== undefined && declaredBytes > largest) throw tooLarge(largest);
    const release = await this.budget.reserve(declaredBytes ?? largest, signal);
    const blob = await withTempDir('console-upload', async (dir) => {
      const path = join(dir, 'upload');
      const media = await this.receiveInto(path, body, declaredBytes);
      return this.stores.blobs.putFile(path, { contentType: media.mediaType, ttlSeconds: UPLOAD_TTL_SECONDS });
    }).finally(release);
    this.forgetExpired(Date.now());
    this.keys.set(blob.key, blob.expiresAt.getTime());
    const fileUrl = this.stores.fileUrls.urlFor(blob.key, UPLOAD_TTL_SECONDS);
    const token = fileUrl.slice(this.filesPrefix.length);
    return { fileUrl, path: `/files/${token}`, token };
  }

  /** Writes `body` to `path`, its kind sniffed from its head and its size held to that kind's limit. */
  private async receiveInto(path: string, body: Readable, declaredBytes: number | undefined): Promise<SniffedMedia> {
    const file = await open(path, 'wx');
    const head: Buffer[] = [];
    let size = 0;
    let media: SniffedMedia | undefined;
    try {
      // Not destroyed when left early: the request's socket must stay open for the answer.
      for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (media === undefined) {
          head.push(chunk);
          if (size >= SNIFF_BYTES) media = this.judge(Buffer.concat(head), declaredBytes);
        }
        if (size > this.limitOf(media)) throw tooLarge(this.limitOf(media));
        await file.write(chunk);
      }
    } finally {
      await file.close();
    }
    return media ?? this.judge(Buffer.concat(head), declaredBytes);
  }

  /** The kind of the upload from its head; refused when unknown, or when its declared size is over that kind's limit. */
  private judge(head: Buffer, declaredBytes: number | undefined): SniffedMedia {
    const media = sniffMedia(head);
    if (!media) throw new GatewayError('unsupported_media', 'the upload is not an image, PDF or recording the gateway reads');
    if (declaredBytes !== undefined && declaredBytes > this.limitOf(media)) throw tooLarge(this.limitOf(media));
    return media;
  }

  /** The limit of the upload's kind; before its kind is known, the larger of the two. */
  private limitOf(media: SniffedMedia | undefined): number {
    return media ? this.limits[media.kind] : Math.max(this.limits.document, this.limits.audio);
  }

  /** The file behind one of this store's upload links, to be read as a stream; undefined for any other URL. */
  open = async (url: string): Promise<LocalFile | undefined> => {
    const key = this.keyOf(url.startsWith(this.filesPrefix) ? url.slice(this.filesPrefix.length) : undefined);
    if (key === undefined) return undefined;
    const blob = await this.stores.blobs.open(key);
    if (!blob) throw new GatewayError('not_found', 'the uploaded file is gone (deleted or expired); upload it again');
    return { size: blob.meta.size, stream: blob.stream };
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

function tooLarge(limit: number): GatewayError {
  return new GatewayError('payload_too_large', `the upload is larger than ${limit} bytes, the limit of its kind (FETCH_MAX_BYTES or ASR_MAX_BYTES)`);
}
