import { request } from 'node:http';

export interface SlowPost {
  port: number;
  path: string;
  /** Bytes of body to send; the body is spaces (valid JSON whitespace up to the point it is cut)… */
  bytes: number;
  /** …after these bytes, when given (the head of a file, for its type to be sniffed). */
  head?: Buffer;
  chunkBytes?: number;
  /** Pause between chunks, as a client on a slow link. */
  delayMs?: number;
  headers?: Record<string, string>;
  /** Send no Content-Length: the body is chunked and its size unknown to the server up front. */
  chunked?: boolean;
}

export interface SlowPostResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Bytes the client had written when the answer arrived. */
  sentWhenAnswered: number;
}

/**
 * A real HTTP client streaming a large body in chunks with pauses, as a platform on a slow
 * link would, and reading whatever the server answers. Rejects when the connection fails
 * before an answer could be read (EPIPE, a reset), which is what the test must rule out.
 */
export function slowPost({ port, path, bytes, head, chunkBytes = 64 * 1024, delayMs = 5, headers = {}, chunked = false }: SlowPost): Promise<SlowPostResult> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': String(bytes) }), ...headers },
      },
      (res) => {
        const sentWhenAnswered = sent;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, sentWhenAnswered });
        });
      },
    );
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    const chunk = Buffer.alloc(chunkBytes, 0x20);
    if (head) {
      req.write(head);
      sent += head.length;
    }
    const writeNext = () => {
      if (sent >= bytes) {
        req.end();
        return;
      }
      const part = chunk.subarray(0, Math.min(chunkBytes, bytes - sent));
      sent += part.length;
      req.write(part);
      timer = setTimeout(writeNext, delayMs);
    };
    writeNext();
  });
}
