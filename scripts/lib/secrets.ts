import { createHash } from 'node:crypto';

/** A valid callback signing secret (`whsec_` + base64 of 32 bytes), the same for the same label: for tests and benches. */
export function webhookSecretFor(label: string): string {
  return `whsec_${createHash('sha256').update(label).digest('base64')}`;
}
