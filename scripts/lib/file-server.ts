import { createServer, type RequestListener, type Server } from 'node:http';

export interface FileServer {
  url(path: string): string;
  close(): Promise<void>;
}

/** A local HTTP server on 127.0.0.1 that the gateway fetches files from. */
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
