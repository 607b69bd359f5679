/**
 * Every failure the gateway can report, defined once: a stable kind, its HTTP status and
 * whether a client may repeat the call. Clients switch on `kind`; messages are for people.
 */
export const ERROR_KINDS = {
  invalid_request: { status: 400, retryable: false },
  forbidden_url: { status: 400, retryable: false },
  unauthorized: { status: 401, retryable: false },
  forbidden: { status: 403, retryable: false },
  not_found: { status: 404, retryable: false },
  /** The same request_id was already used for a different request. */
  conflict: { status: 409, retryable: false },
  expired: { status: 410, retryable: false },
  payload_too_large: { status: 413, retryable: false },
  unsupported_media: { status: 415, retryable: false },
  /** AI-4's self-audit still read personal data on a page after redacting it twice: the file is withheld. */
  deidentification_failed: { status: 422, retryable: false },
  /** The caller went away before the answer was ready (nginx's 499); only logs and metrics see it. */
  cancelled: { status: 499, retryable: true },
  internal: { status: 500, retryable: true },
  engine_failed: { status: 500, retryable: true },
  fetch_failed: { status: 502, retryable: true },
  engine_unavailable: { status: 503, retryable: false },
  overloaded: { status: 503, retryable: true },
  timeout: { status: 504, retryable: true },
} as const satisfies Record<string, { status: number; retryable: boolean }>;

export type ErrorKind = keyof typeof ERROR_KINDS;

export interface GatewayErrorOptions {
  /** Overrides the kind's default, e.g. a fetch that failed with a 404 will not recover. */
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
