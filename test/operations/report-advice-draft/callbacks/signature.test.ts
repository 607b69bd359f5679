import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signCallback, verifyCallback } from '../../../../src/operations/report-advice-draft/callbacks/signature.js';
import { webhookSecretFor } from '../../../../scripts/lib/secrets.js';

const KEY = Buffer.from('a 32-byte key for the test case!', 'utf8');
/** The Standard Webhooks form: whsec_ and the key's bytes in base64. */
const SECRET = `whsec_${KEY.toString('base64')}`;
const PREVIOUS = webhookSecretFor('previous');
const ANOTHER = webhookSecretFor('another');
const ID = 'wh-1';
const TIMESTAMP = 1_700_000_000;
const BODY = '{"request_id":"r-1"}';
const NOW = new Date(TIMESTAMP * 1000);
const OPTIONS = { toleranceSeconds: 300, now: NOW };

function headers(signature: string, overrides: { id?: string; timestamp?: string } = {}) {
  return { id: ID, timestamp: String(TIMESTAMP), signature, ...overrides };
}

describe('callback signatures', () => {
  it('matches HMAC-SHA256 over "<id>.<timestamp>.<body>" keyed with the decoded bytes of the whsec_ secret, not its text', () => {
    const independent = createHmac('sha256', KEY).update(`${ID}.${TIMESTAMP}.${BODY}`).digest('base64');
    expect(signCallback(SECRET, ID, TIMESTAMP, BODY)).toBe(`v1,${independent}`);
    expect(verifyCallback(SECRET, headers(`v1,${independent}`), BODY, OPTIONS)).toEqual({ ok: true });
  });

  it('signs as the Standard Webhooks reference library verifies, and verifies what it signs', () => {
    const now = Math.floor(Date.now() / 1000);
    const signed = { 'webhook-id': ID, 'webhook-timestamp': String(now), 'webhook-signature': signCallback(SECRET, ID, now, BODY) };
    expect(new Webhook(SECRET).verify(BODY, signed)).toEqual(JSON.parse(BODY));
    expect(() => new Webhook(ANOTHER).verify(BODY, signed)).toThrow();
    const theirs = new Webhook(SECRET).sign(ID, new Date(now * 1000), BODY);
    expect(verifyCallback(SECRET, { id: ID, timestamp: String(now), signature: theirs }, BODY, { toleranceSeconds: 300 })).toEqual({ ok: true });
  });

  it('refuses to sign with a secret the configuration would refuse', () => {
    expect(() => signCallback('test-secret-0123456789', ID, TIMESTAMP, BODY)).toThrow(/whsec_/);
  });

  it('reproduces the Standard Webhooks test vector for a whsec_ secret', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    const signature = signCallback(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body);
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    const result = verifyCallback(
      secret,
      { id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: '1614265330', signature },
      body,
      { toleranceSeconds: 300, now: new Date(1614265330 * 1000) },
    );
    expect(result).toEqual({ ok: true });
  });

  it('signs with several secrets at once and verifies with any of several', () => {
    const previous = PREVIOUS;
    const both = signCallback([SECRET, previous], ID, TIMESTAMP, BODY);
    expect(both).toBe(`${signCallback(SECRET, ID, TIMESTAMP, BODY)} ${signCallback(previous, ID, TIMESTAMP, BODY)}`);
    expect(verifyCallback(previous, headers(both), BODY, OPTIONS)).toEqual({ ok: true });
    expect(verifyCallback([ANOTHER, previous], headers(signCallback(previous, ID, TIMESTAMP, BODY)), BODY, OPTIONS)).toEqual({ ok: true });
    expect(verifyCallback([ANOTHER], headers(both), BODY, OPTIONS)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('verifies what it signed', () => {
    expect(verifyCallback(SECRET, headers(signCallback(SECRET, ID, TIMESTAMP, BODY)), BODY, OPTIONS)).toEqual({ ok: true });
  });

  it('uses the clock when no time is given', () => {
    const now = Math.floor(Date.now() / 1000);
    const signature = signCallback(SECRET, ID, now, BODY);
    expect(verifyCallback(SECRET, headers(signature, { timestamp: String(now) }), BODY, { toleranceSeconds: 300 })).toEqual({ ok: true });
  });

  it.each([
    ['body', { body: '{"request_id":"r-2"}' }],
    ['id', { id: 'wh-2' }],
    ['timestamp', { timestamp: String(TIMESTAMP + 1) }],
  ])('refuses a tampered %s', (_part, tampered: { body?: string; id?: string; timestamp?: string }) => {
    const signature = signCallback(SECRET, ID, TIMESTAMP, BODY);
    const { body = BODY, ...headerOverrides } = tampered;
    expect(verifyCallback(SECRET, headers(signature, headerOverrides), body, OPTIONS)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('refuses a signature made with another secret', () => {
    const signature = signCallback(ANOTHER, ID, TIMESTAMP, BODY);
    expect(verifyCallback(SECRET, headers(signature), BODY, OPTIONS)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it.each([
    ['too old', TIMESTAMP - 301],
    ['too far in the future', TIMESTAMP + 301],
  ])('refuses a timestamp %s', (_case, timestamp) => {
    const signature = signCallback(SECRET, ID, timestamp, BODY);
    expect(verifyCallback(SECRET, headers(signature, { timestamp: String(timestamp) }), BODY, OPTIONS)).toEqual({
      ok: false,
      reason: 'stale_timestamp',
    });
  });

  it('accepts timestamps at the edge of the window', () => {
    for (const timestamp of [TIMESTAMP - 300, TIMESTAMP + 300]) {
      const signature = signCallback(SECRET, ID, timestamp, BODY);
      expect(verifyCallback(SECRET, headers(signature, { timestamp: String(timestamp) }), BODY, OPTIONS)).toEqual({ ok: true });
    }
  });

  it('accepts a header with several signatures when one of them is valid', () => {
    const valid = signCallback(SECRET, ID, TIMESTAMP, BODY);
    const stale = signCallback(PREVIOUS, ID, TIMESTAMP, BODY);
    const header = `v2,${valid.slice(3)} ${stale}  ${valid}`;
    expect(verifyCallback(SECRET, headers(header), BODY, OPTIONS)).toEqual({ ok: true });
  });

  it('only counts v1 signatures', () => {
    const valid = signCallback(SECRET, ID, TIMESTAMP, BODY);
    expect(verifyCallback(SECRET, headers(`v1a,${valid.slice(3)}`), BODY, OPTIONS)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it.each(['', 'v1', 'v1,', 'v1,not base64!', 'garbage', ',,,', 'v1,AAAA'])('refuses the malformed signature %j', (signature) => {
    const result = verifyCallback(SECRET, headers(signature), BODY, OPTIONS);
    expect(result.ok).toBe(false);
  });

  it.each([
    [{ id: undefined }],
    [{ timestamp: undefined }],
    [{ signature: undefined }],
    [{ id: '' }],
  ])('reports missing headers (%j)', (override) => {
    const complete = headers(signCallback(SECRET, ID, TIMESTAMP, BODY));
    expect(verifyCallback(SECRET, { ...complete, ...override }, BODY, OPTIONS)).toEqual({ ok: false, reason: 'missing_headers' });
  });

  it.each(['soon', '-1700000000', '1700000000.5', ' 1700000000', '1e9', '99999999999999999999'])(
    'refuses the malformed timestamp %j',
    (timestamp) => {
      const signature = signCallback(SECRET, ID, TIMESTAMP, BODY);
      expect(verifyCallback(SECRET, headers(signature, { timestamp }), BODY, OPTIONS)).toEqual({ ok: false, reason: 'bad_timestamp' });
    },
  );
});
