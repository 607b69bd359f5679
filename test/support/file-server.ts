import { createServer, type RequestListener, type Server } from 'node:http';
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

/** A file reference (AI-4, AI-5) to `/<name>` on the server. */
export function fileReference(server: FileServer, upload_file_id: number, name: string) {
  return { upload_file_id, bucket: 'cases', object_key: `k/${name}`, file_name: name, file_url: server.url(`/${name}`) };
}

export type FileReferenceBody = ReturnType<typeof fileReference>;
