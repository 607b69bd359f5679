import { createServer, type RequestListener, type Server } from 'node:http';

/** A WAV header followed by silence: enough for magic-byte sniffing. */
export const WAV_BYTES = (() => {
  const bytes = Buffer.alloc(44 + 320);
  bytes.write('RIFF', 0, 'ascii');
  bytes.writeUInt32LE(bytes.length - 8, 4);
  bytes.write('WAVEfmt ', 8, 'ascii');
  bytes.writeUInt32LE(16, 16);
  bytes.writeUInt16LE(1, 20);
  bytes.writeUInt16LE(1, 22);
  bytes.writeUInt32LE(16_000, 24);
  bytes.writeUInt32LE(32_000, 28);
  bytes.writeUInt16LE(2, 32);
  bytes.writeUInt16LE(16, 34);
  bytes.write('data', 36, 'ascii');
  bytes.writeUInt32LE(320, 40);
  return bytes;
})();

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
