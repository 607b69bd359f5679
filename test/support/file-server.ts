import { readFile } from 'node:fs/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import { basename, resolve } from 'node:path';
import { silentPcmWav } from '../../src/engines/asr/wav.js';

/** 10 ms of 16 kHz silence: a real WAV, enough for magic-byte sniffing. */
export const WAV_BYTES = silentPcmWav(10);

export const PNG_BYTES = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

export interface FileServer {
  url(path: string): string;
  close(): Promise<void>;
}

/** A local HTTP server on 127.0.0.1 for fetch tests. */
export async function startFileServer(handler: RequestListener): Promise<FileServer> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    url: (path) => `http://127.0.0.1:${address.port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A file reference (AI-4, AI-5) named `name`, at `/<name>` on the server unless `path` says where. */
export function fileReference(server: FileServer, upload_file_id: number, name: string, path = `/${name}`) {
  return { upload_file_id, bucket: 'cases', object_key: `k/${name}`, file_name: name, file_url: server.url(path) };
}

/** A file server for this machine's files, each at its absolute path. */
export function serveLocalFiles(): Promise<FileServer> {
  return startFileServer((request, response) => {
    readFile(decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname)).then(
      (bytes) => response.end(bytes),
      () => response.writeHead(404).end(),
    );
  });
}

/** A file reference to a local file on a serveLocalFiles server. */
export const localFileReference = (server: FileServer, upload_file_id: number, path: string) =>
  fileReference(server, upload_file_id, basename(path), encodeURI(resolve(path)));

export type FileReferenceBody = ReturnType<typeof fileReference>;
