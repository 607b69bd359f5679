import { createHmac } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import { createFileUrlSigner, loadOrCreateSigningSecret } from '../../../src/platform/store/file-tokens.js';

const secret = Buffer.alloc(32, 7);
const signer = createFileUrlSigner(secret, 'https://gateway.local');
const now = new Date('2030-01-01T00:00:00Z');
const key = 'AbCdEfGhIjKlMnOpQrStUvWx';

function tokenFrom(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}

function kindOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    if (error instanceof GatewayError) return error.kind;
    throw error;
  }
  return undefined;
}

function flipCharAt(text: string, index: number): string {
  const replacement = text[index] === 'A' ? 'B' : 'A';
  return text.slice(0, index) + replacement + text.slice(index + 1);
}

describe('createFileUrlSigner', () => {
  it('builds a URL whose token verifies to the key', () => {
    const url = signer.urlFor(key, 300, now);

    expect(url).toMatch(/^https:\/\/gateway\.local\/files\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(signer.verify(tokenFrom(url), now)).toBe(key);
  });

  it('does not double the slash when the base URL ends with one', () => {
    const url = createFileUrlSigner(secret, 'https://gateway.local/mdt/').urlFor(key, 300, now);

    expect(url.startsWith('https://gateway.local/mdt/files/')).toBe(true);
    expect(url.replace('https://', '')).not.toContain('//');
  });

  it('rejects a token with any character of payload or signature flipped', () => {
    const token = tokenFrom(signer.urlFor(key, 300, now));

    for (let index = 0; index < token.length; index++) {
      if (token[index] === '.') continue;
      expect(kindOf(() => signer.verify(flipCharAt(token, index), now))).toBe('forbidden');
    }
  });

  it('rejects a token signed with another secret', () => {
    const token = tokenFrom(createFileUrlSigner(Buffer.alloc(32, 8), 'https://gateway.local').urlFor(key, 300, now));

    expect(kindOf(() => signer.verify(token, now))).toBe('forbidden');
  });

  it('reports an expired token as expired', () => {
    const token = tokenFrom(signer.urlFor(key, 300, now));

    expect(signer.verify(token, new Date(now.getTime() + 299_000))).toBe(key);
    expect(kindOf(() => signer.verify(token, new Date(now.getTime() + 300_000)))).toBe('expired');
  });

  it.each(['', 'garbage', 'no-dot-here', '.', 'abc.', '.abc', 'a.b.c', '%%%.%%%'])(
    'rejects the malformed token %j',
    (token) => {
      expect(kindOf(() => signer.verify(token, now))).toBe('forbidden');
    },
  );

  it.each([{ k: 42, e: 1_900_000_000 }, { k: key }, { k: '', e: 1_900_000_000 }, 'text'])(
    'rejects the correctly signed non-token payload %j',
    (payload) => {
      const payloadPart = Buffer.from(JSON.stringify(payload)).toString('base64url');
      const signature = createHmac('sha256', secret).update(payloadPart).digest('base64url');

      expect(kindOf(() => signer.verify(`${payloadPart}.${signature}`, now))).toBe('forbidden');
    },
  );
});

describe('loadOrCreateSigningSecret', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'gateway-secret-'));
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('prefers a configured secret', () => {
    const configured = 'x'.repeat(32);

    expect(loadOrCreateSigningSecret(dataDir, configured)).toEqual(Buffer.from(configured));
  });

  it('refuses a configured secret shorter than 32 characters, naming the setting', () => {
    expect(() => loadOrCreateSigningSecret(dataDir, 'short')).toThrowError(/FILE_SIGNING_SECRET/);
    expect(kindOf(() => loadOrCreateSigningSecret(dataDir, 'short'))).toBe('internal');
  });

  it('creates a private random key once and reuses it across restarts', async () => {
    const created = loadOrCreateSigningSecret(dataDir);
    const keyPath = join(dataDir, 'file-signing.key');

    expect(created).toHaveLength(32);
    expect(await readFile(keyPath)).toEqual(created);
    expect((await stat(keyPath)).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSigningSecret(dataDir)).toEqual(created);
  });
});
