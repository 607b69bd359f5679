/**
 * JSON over HTTP to the operator's model server, with node:http rather than fetch: fetch's
 * client gives up on an answer after 300 s (undici's headers timeout), and a generation on a CPU
 * server or an AI-3 draft (ADVICE_TIMEOUT_MS, 10 min) may take longer. Here only the caller's
 * signal ends a call, and ending it closes the connection, which stops the server's generation.
 */
import * as http from 'node:http';
import * as https from 'node:https';

export interface JsonAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The parsed body; undefined when it is not JSON. */
  body: unknown;
}

/** The server is trusted, but an answer this large is a fault, not an answer. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * Kept-alive connections, closed after 4 s idle: before the 5 s after which llama-server
 * (cpp-httplib) and vLLM (uvicorn) close theirs, so a request never goes out on a connection
 * the server is closing. Active connections have no time limit (the agent times out free ones only).
 */
const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: 4_000 }),
  'https:': new https.Agent({ keepAlive: true, timeout: 4_000 }),
};

export function requestJson(
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: unknown; signal: AbortSignal },
): Promise<JsonAnswer> {
  const target = new URL(url);
  const protocol = target.protocol === 'https:' ? 'https:' : 'http:';
  const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
  const headers = {
    accept: 'application/json',
    ...init.headers,
    ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}),
  };
  return new Promise<JsonAnswer>((resolve, reject) => {
    const client = protocol === 'https:' ? https : http;
    const request = client.request(target, { method: init.method, headers, agent: agents[protocol], signal: init.signal }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) request.destroy(new Error(`answer over ${MAX_ANSWER_BYTES} bytes`));
        else chunks.push(chunk);
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: parseJson(Buffer.concat(chunks)) }));
      response.on('error', reject);
      response.on('close', () => {
        if (!response.complete) reject(new Error('the connection closed before the answer was complete'));
      });
    });
    request.on('error', reject);
    request.end(payload);
  });
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
