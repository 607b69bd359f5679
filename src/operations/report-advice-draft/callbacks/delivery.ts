import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { signCallback } from './signature.js';

export interface CallbackTarget {
  url: string;
  /** Signs every callback when set; callbacks go unsigned without it. */
  secret: string | undefined;
  /** While a secret is rotated: callbacks also carry a signature made with the previous one. */
  previousSecret?: string | undefined;
  timeoutMs: number;
}

export interface CallbackMessage {
  /** The same on every attempt, so the receiver can drop repeats. */
  webhookId: string;
  body: string;
}

/** One POST's outcome; `detail` is for operators ("HTTP 503", "ECONNREFUSED", "timeout after 10000 ms"). */
export interface DeliveryAttempt {
  delivered: boolean;
  detail: string;
}

export interface RetryPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
  /** After this long since the first attempt, a callback that still fails is given up (dead). */
  horizonMs: number;
}

export type NextStep = { retryAt: number } | { giveUp: true };

/**
 * When to try again after attempt `attempt` (1-based) failed: exponential backoff with jitter
 * (half to all of the step), capped, and a last attempt exactly at the horizon.
 */
export function nextAttempt(attempt: number, firstAttemptAt: number, now: number, policy: RetryPolicy, random = Math.random): NextStep {
  const deadline = firstAttemptAt + policy.horizonMs;
  if (now >= deadline) return { giveUp: true };
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempt - 1, 40));
  const delay = step * (0.5 + 0.5 * random());
  return { retryAt: Math.min(deadline, Math.round(now + delay)) };
}

function signatureHeaders(target: CallbackTarget, message: CallbackMessage, now: Date): Record<string, string> {
  const { secret, previousSecret } = target;
  if (secret === undefined) return {};
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'webhook-id': message.webhookId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signCallback(
      previousSecret === undefined ? [secret] : [secret, previousSecret],
      message.webhookId,
      timestamp,
      message.body,
    ),
  };
}

/**
 * POSTs one callback, signed afresh (a retry carries a new timestamp, the same id). Only a 2xx
 * counts as delivered; redirects are not followed. Never throws.
 */
export function postCallback(
  target: CallbackTarget,
  message: CallbackMessage,
  signal: AbortSignal,
  now = new Date(),
): Promise<DeliveryAttempt> {
  const url = new URL(target.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (attempt: DeliveryAttempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(attempt);
    };
    const request = send(url, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(message.body),
        ...signatureHeaders(target, message, now),
      },
    });
    const timer = setTimeout(() => {
      request.destroy();
      finish({ delivered: false, detail: `timeout after ${target.timeoutMs} ms` });
    }, target.timeoutMs);
    const onAbort = () => {
      request.destroy();
      finish({ delivered: false, detail: 'aborted: the gateway is shutting down' });
    };
    signal.addEventListener('abort', onAbort, { once: true });
    request.on('response', (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      response.resume(); // the receiver's answer body is not needed; drain it so the socket closes
      finish({ delivered: status >= 200 && status < 300, detail: `HTTP ${status}` });
    });
    request.on('error', (error: NodeJS.ErrnoException) => finish({ delivered: false, detail: error.code ?? error.message }));
    if (signal.aborted) onAbort();
    else request.end(message.body);
  });
}
