/**
 * Callback signing secrets in the Standard Webhooks form: `whsec_` and the base64 of the key's
 * bytes. The HMAC key is the decoded bytes, as the standard's own libraries take it, so a platform
 * verifying with one of them accepts the gateway's callbacks.
 */
const PREFIX = 'whsec_';
/** The standard asks for keys of 24 to 64 random bytes. */
export const MIN_WEBHOOK_KEY_BYTES = 24;
export const MAKE_WEBHOOK_SECRET = 'make one with: echo "whsec_$(openssl rand -base64 32)"';

/** The key a secret stands for, or what is wrong with it (never quoting it). */
export function parseWebhookSecret(secret: string): { key: Buffer } | { problem: string } {
  if (!secret.startsWith(PREFIX)) return { problem: `must start with ${PREFIX} (the Standard Webhooks form); ${MAKE_WEBHOOK_SECRET}` };
  const encoded = secret.slice(PREFIX.length);
  const key = Buffer.from(encoded, 'base64');
  // Node's decoder skips characters outside the alphabet: only a text that encodes back to itself is base64.
  if (key.toString('base64') !== encoded) {
    return { problem: `after ${PREFIX} must come standard base64 (A–Z a–z 0–9 + /, padded with =); ${MAKE_WEBHOOK_SECRET}` };
  }
  if (key.length < MIN_WEBHOOK_KEY_BYTES) {
    return { problem: `decodes to ${key.length} bytes, at least ${MIN_WEBHOOK_KEY_BYTES} are needed; ${MAKE_WEBHOOK_SECRET}` };
  }
  return { key };
}

/** The HMAC key of a secret the configuration accepted. */
export function webhookKey(secret: string): Buffer {
  const parsed = parseWebhookSecret(secret);
  if ('problem' in parsed) throw new Error(`not a Standard Webhooks secret: it ${parsed.problem}`);
  return parsed.key;
}
