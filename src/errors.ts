/**
 * Every failure the gateway can report, defined once: a stable kind, its HTTP status, whether a
 * client may repeat the call (the default; a failure may say otherwise, e.g. an LLM server that
 * answered 4xx) and when it happens. The OpenAPI document and docs/errors.md are derived from this table.
 * Clients switch on `kind`; messages are for people.
 */
export const ERROR_KINDS = {
  invalid_request: { status: 400, retryable: false, when: 'malformed JSON, a schema violation (the message names the field), a bad URL' },
  forbidden_url: {
    status: 400,
    retryable: false,
    when: 'file_url / voice_url, as sent, not a valid http(s) URL, its host not allowlisted, or an IP address in a refused range (a name that resolves to one is `fetch_failed`)',
  },
  unauthorized: { status: 401, retryable: false, when: 'tokens are set (`API_TOKENS`, `OPERATOR_TOKENS`) and no valid bearer token was sent' },
  forbidden: {
    status: 403,
    retryable: false,
    when: 'a client token on a route for operator tokens (console API, AI-3 job views and redelivery, `/metrics`, the detailed `/readyz`); a tampered or malformed `/files/` token',
  },
  not_found: { status: 404, retryable: false, when: 'an unknown route, a produced file that is gone, an unknown AI-3 job' },
  request_timeout: {
    status: 408,
    retryable: true,
    when: 'the client did not send its whole request within `REQUEST_TIMEOUT_MS`, or its head within `HEADERS_TIMEOUT_MS`; the connection is closed',
  },
  conflict: { status: 409, retryable: false, when: 'AI-3: the `request_id` was already submitted with a different body, or a redelivery asked for a job that is not dead' },
  expired: { status: 410, retryable: false, when: 'an expired `/files/` link' },
  payload_too_large: {
    status: 413,
    retryable: false,
    when: 'a body over `BODY_LIMIT_BYTES`, a fetched file over its byte limit (its host answered 2xx), too many pages or pixels, too long a recording',
  },
  unsupported_media: {
    status: 415,
    retryable: false,
    when: 'Content-Type not JSON; a fetched file (its host answered 2xx) or console upload that is empty or of an unknown or wrong type (sniffed from its bytes)',
  },
  deidentification_failed: {
    status: 422,
    retryable: false,
    when: 'AI-4: personal data was still readable on a page after redacting it, or a page was too poorly read to vouch for; the file is withheld',
  },
  cancelled: { status: 499, retryable: true, when: 'the client disconnected first (seen in logs and metrics only)' },
  internal: { status: 500, retryable: true, when: 'an unexpected fault (logged with its call sites, never its message)' },
  engine_failed: { status: 500, retryable: true, when: 'an engine failed on this request (e.g. its process died)' },
  fetch_failed: {
    status: 502,
    retryable: true,
    when: "file_url / voice_url did not arrive whole with a 2xx, whatever the network said (DNS, an address refused after resolving or redirecting, connection, TLS, timeout, an HTTP error status, too many redirects, a body cut short): always the same message, naming the field, and retryable; the gateway's log says why. What is wrong with a file served whole is its own 4xx",
  },
  engine_unavailable: {
    status: 503,
    retryable: false,
    when: "the engine's model or runtime is not installed or not configured, or failed to load (`/readyz` says why): not retryable. While the engine is starting, or restarting after its process died, it is retryable with `Retry-After`",
  },
  overloaded: {
    status: 503,
    retryable: true,
    when: "the engine's queue is full (`Retry-After` says when to retry), the files being downloaded held `FETCH_MAX_IN_FLIGHT_BYTES` for longer than `FETCH_QUEUE_TIMEOUT_MS`, or the gateway is shutting down",
  },
  store_unavailable: {
    status: 503,
    retryable: true,
    when: "the gateway's database (PostgreSQL, `DATABASE_URL`) cannot be reached, e.g. while it restarts or fails over: nothing was stored; `Retry-After` says when to retry",
  },
  timeout: { status: 504, retryable: true, when: "the request waited past the engine's queue deadline, or ran past its time limit" },
} as const satisfies Record<string, { status: number; retryable: boolean; when: string }>;

export type ErrorKind = keyof typeof ERROR_KINDS;

export interface GatewayErrorOptions {
  /** Overrides the kind's default, e.g. an LLM server's 4xx answer will not recover. */
  retryable?: boolean;
  /** Seconds a client should wait before retrying; sent as the Retry-After header. */
  retryAfterSeconds?: number;
  cause?: unknown;
}

export class GatewayError extends Error {
  readonly kind: ErrorKind;
  readonly status: number;
  readonly retryable: boolean;
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: ErrorKind, message: string, options: GatewayErrorOptions = {}) {
    // A kind says where it failed; a stack would only cost time on hot refusal paths
    // (overloaded, engine_unavailable). An unexpected fault keeps its own stack as `cause`.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'GatewayError';
    this.kind = kind;
    this.status = ERROR_KINDS[kind].status;
    this.retryable = options.retryable ?? ERROR_KINDS[kind].retryable;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}
