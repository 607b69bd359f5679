/**
 * Signing and verification of AI callbacks, Standard Webhooks style (https://www.standardwebhooks.com):
 *
 *   webhook-id:        unique per callback; retries of the same callback repeat it
 *   webhook-timestamp: unix seconds when it was signed
 *   webhook-signature: "v1,<base64 HMAC-SHA256 of `<id>.<timestamp>.<raw body>`>", possibly
 *                      several space-separated; any one valid `v1,` signature is enough
 *
 * A secret is written in the standard's form, `whsec_<base64>`, and the HMAC key is the decoded
 * bytes after the prefix, as the standard's own libraries take it (config/webhook-secret.ts).
 *
 * Rotating a secret: the sender signs with the new and the previous secret at once (two
 * signatures in the header), the receiver accepts a signature made with either of its secrets,
 * so sender and receivers can change over one at a time without refusing a callback.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { webhookKey } from '../../../config/index.js';

const SIGNATURE_VERSION = 'v1';

export interface CallbackSignatureHeaders {
  id?: string;
  timestamp?: string;
  signature?: string;
}

export type CallbackRejection = 'missing_headers' | 'bad_timestamp' | 'stale_timestamp' | 'bad_signature';

export type CallbackVerification = { ok: true } | { ok: false; reason: CallbackRejection };

export interface VerifyOptions {
  /** How far webhook-timestamp may lie from `now`, in either direction. */
  toleranceSeconds: number;
  now?: Date;
}

function digest(secret: string, id: string, timestampSeconds: number | string, body: string): string {
  return createHmac('sha256', webhookKey(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
}

/** The webhook-signature header value for one callback: one signature per secret, space-separated. */
export function signCallback(secrets: string | readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secretList(secrets)
    .map((secret) => `${SIGNATURE_VERSION},${digest(secret, id, timestampSeconds, body)}`)
    .join(' ');
}

function secretList(secrets: string | readonly string[]): readonly string[] {
  return typeof secrets === 'string' ? [secrets] : secrets;
}

function constantTimeEquals(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

function anySignatureMatches(header: string, expected: string): boolean {
  return header
    .split(' ')
    .filter(Boolean)
    .some((candidate) => {
      const [version, value] = candidate.split(',', 2);
      return version === SIGNATURE_VERSION && value !== undefined && constantTimeEquals(value, expected);
    });
}

function parseTimestamp(value: string): number | undefined {
  return /^\d{1,12}$/.test(value) ? Number(value) : undefined;
}

/** Valid when any `v1,` signature of the header was made with any of `secrets` (the current one and, while rotating, the previous). */
export function verifyCallback(
  secrets: string | readonly string[],
  headers: CallbackSignatureHeaders,
  body: string,
  options: VerifyOptions,
): CallbackVerification {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature) return { ok: false, reason: 'missing_headers' };
  const timestampSeconds = parseTimestamp(timestamp);
  if (timestampSeconds === undefined) return { ok: false, reason: 'bad_timestamp' };
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - timestampSeconds) > options.toleranceSeconds) return { ok: false, reason: 'stale_timestamp' };
  // The signed text is the header as sent: "0170…" must not verify a signature made over "170…".
  const matches = secretList(secrets).some((secret) => anySignatureMatches(signature, digest(secret, id, timestamp, body)));
  return matches ? { ok: true } : { ok: false, reason: 'bad_signature' };
}
