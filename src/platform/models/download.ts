/**
 * One file over HTTP(S) into `<dest>.part`, resumed with a Range request when a partial file
 * is there, checked against its sha256 before it is renamed into place. A file that fails the
 * check is deleted, never installed.
 */
import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { sha256OfFile } from './checksums.js';

const MAX_REDIRECTS = 5;

export interface DownloadOptions {
  url: string;
  dest: string;
  /** Verified when given; a mismatch deletes the download. */
  sha256?: string | undefined;
  bytes?: number | null | undefined;
  onProgress?(received: number, total: number | undefined): void;
}

export interface Downloaded {
  sha256: string;
  bytes: number;
  resumedFrom: number;
}

function get(url: string, headers: Record<string, string>, redirects = 0): Promise<IncomingMessage> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(target, { headers, timeout: 60_000 }, (response) => {
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location) {
        response.resume();
        if (redirects >= MAX_REDIRECTS) return reject(new Error(`more than ${MAX_REDIRECTS} redirects from ${url}`));
        return resolve(get(new URL(location, target).toString(), headers, redirects + 1));
      }
      resolve(response);
    });
    request.on('timeout', () => request.destroy(new Error(`no answer from ${target.host} within 60 s`)));
    request.on('error', reject);
    request.end();
  });
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

export async function download(options: DownloadOptions): Promise<Downloaded> {
  const partial = `${options.dest}.part`;
  let resumeFrom = await sizeOf(partial);
  const response = await get(options.url, resumeFrom > 0 ? { range: `bytes=${resumeFrom}-` } : {});
  const status = response.statusCode ?? 0;
  if (status === 416) {
    response.resume(); // the partial file already holds everything (or more): check it as it is
  } else if (status === 200 || status === 206) {
    if (status === 200) resumeFrom = 0; // the server ignored the Range header: start over
    const length = Number(response.headers['content-length']);
    const total = Number.isFinite(length) ? resumeFrom + length : (options.bytes ?? undefined);
    let received = resumeFrom;
    const progress = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        options.onProgress?.(received, total);
        done(null, chunk);
      },
    });
    await pipeline(response, progress, createWriteStream(partial, { flags: resumeFrom > 0 ? 'a' : 'w' }));
  } else {
    response.resume();
    throw new Error(`${options.url} answered HTTP ${status}`);
  }
  const bytes = await sizeOf(partial);
  const sha256 = await sha256OfFile(partial);
  if ((options.sha256 && sha256 !== options.sha256) || (options.bytes && bytes !== options.bytes)) {
    await rm(partial, { force: true });
    throw new Error(
      `${basename(options.dest)}: the download from ${options.url} does not match (sha256 ${sha256.slice(0, 12)}…, ${bytes} bytes; ` +
        `expected ${options.sha256?.slice(0, 12) ?? 'any'}…, ${options.bytes ?? 'any'} bytes); it was deleted`,
    );
  }
  await rename(partial, options.dest);
  return { sha256, bytes, resumedFrom: resumeFrom };
}
