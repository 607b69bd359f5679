/**
 * The self-test's view of a running gateway: its public HTTP interface only, as a platform or
 * an operator's console reaches it. Samples are handed over as console uploads, which the
 * gateway reads from its own store, so the check needs no FETCH_ALLOW_LOOPBACK and no file
 * server the gateway's fetch rules would have to allow.
 */
import type { EngineName } from '../../contract/engines.js';

export interface Answer {
  status: number;
  json: unknown;
  ms: number;
}

export interface EngineView {
  state: string;
  device?: string | undefined;
  model?: string | undefined;
  reason?: string | undefined;
}

export class GatewayClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string | undefined,
    private readonly timeoutMs: number,
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(this.token ? { authorization: `Bearer ${this.token}` } : {}), ...extra };
  }

  async request(method: string, path: string, body?: unknown): Promise<Answer> {
    const started = performance.now();
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: this.headers(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await response.text();
    const ms = performance.now() - started;
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, json, ms };
  }

  /** Bytes behind a URL the gateway handed out (a de-identified file), as a client fetches it. */
  async download(url: string): Promise<{ status: number; bytes: Buffer }> {
    const response = await fetch(url, { signal: AbortSignal.timeout(this.timeoutMs) });
    return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  /** A sample as a console upload: the file_url an operation then reads from the gateway's own store. */
  async upload(bytes: Buffer): Promise<{ fileUrl: string; token: string }> {
    const response = await fetch(`${this.baseUrl}/console/api/uploads`, {
      method: 'POST',
      headers: this.headers({ 'content-type': 'application/octet-stream' }),
      body: new Uint8Array(bytes),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const json = (await response.json().catch(() => ({}))) as { file_url?: string; token?: string; error?: { message?: string } };
    if (response.status !== 201 || !json.file_url || !json.token) {
      throw new Error(`uploading a sample answered HTTP ${response.status}${json.error?.message ? `: ${json.error.message}` : ''}`);
    }
    return { fileUrl: json.file_url, token: json.token };
  }

  async deleteUpload(token: string): Promise<void> {
    await fetch(`${this.baseUrl}/console/api/uploads/${token}`, { method: 'DELETE', headers: this.headers() }).catch(() => undefined);
  }

  /** Each engine's state, device and model, from the console's status (the same report as /readyz). */
  async engines(): Promise<Record<EngineName, EngineView>> {
    const answer = await this.request('GET', '/console/api/status');
    if (answer.status !== 200) throw new Error(`GET /console/api/status answered HTTP ${answer.status}${describeError(answer.json)}`);
    return (answer.json as { engines: Record<EngineName, EngineView> }).engines;
  }

  /** Waits for /readyz to answer 200; resolves false when `waitMs` passes first. */
  async waitUntilReady(waitMs: number): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const status = await fetch(`${this.baseUrl}/readyz`, { signal: AbortSignal.timeout(5_000) }).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((wake) => setTimeout(wake, 1_000));
    }
  }
}

/** `: <kind>: <message>` of an error body, for a failure's line; empty for anything else. */
export function describeError(json: unknown): string {
  const error = (json as { error?: { kind?: unknown; message?: unknown } } | undefined)?.error;
  return error ? `: ${String(error.kind)}: ${String(error.message)}` : '';
}
