import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GatewayError } from '../../errors.js';
import { makePrivateDir } from '../private-files.js';

export interface FileUrlSigner {
  /** `${publicBaseUrl}/files/${token}`. */
  urlFor(key: string, ttlSeconds: number, now?: Date): string;
  /** Returns the blob key; throws GatewayError 'forbidden' (malformed, bad signature) or 'expired'. */
  verify(token: string, now?: Date): string;
}

interface TokenPayload {
  k: string;
  /** Expiry, Unix seconds. */
  e: number;
}

export const SIGNING_KEY_FILE_NAME = 'file-signing.key';
const SECRET_BYTES = 32;
const MIN_CONFIGURED_SECRET_LENGTH = 32;

export function createFileUrlSigner(secret: Buffer, publicBaseUrl: string): FileUrlSigner {
  const baseUrl = publicBaseUrl.replace(/\/+$/, '');
  const sign = (payloadPart: string): string => createHmac('sha256', secret).update(payloadPart).digest('base64url');

  return {
    urlFor(key, ttlSeconds, now = new Date()) {
      const payload: TokenPayload = { k: key, e: Math.floor(now.getTime() / 1000) + ttlSeconds };
      const payloadPart = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${baseUrl}/files/${payloadPart}.${sign(payloadPart)}`;
    },
    verify(token, now = new Date()) {
      const [payloadPart, signaturePart, ...rest] = token.split('.');
      if (!payloadPart || !signaturePart || rest.length > 0) throw forbidden();
      // Compared as text, not decoded bytes: base64url decoding tolerates altered padding bits.
      if (!equalInConstantTime(signaturePart, sign(payloadPart))) throw forbidden();
      const payload = parsePayload(payloadPart);
      if (now.getTime() >= payload.e * 1000) throw new GatewayError('expired', 'This file link has expired');
      return payload.k;
    },
  };
}

function equalInConstantTime(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function parsePayload(payloadPart: string): TokenPayload {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8'));
  } catch {
    throw forbidden();
  }
  if (!isTokenPayload(payload)) throw forbidden();
  return payload;
}

function isTokenPayload(value: unknown): value is TokenPayload {
  if (typeof value !== 'object' || value === null) return false;
  const { k, e } = value as Record<string, unknown>;
  return typeof k === 'string' && k.length > 0 && Number.isInteger(e);
}

function forbidden(): GatewayError {
  return new GatewayError('forbidden', 'Invalid file link');
}

/**
 * The configured secret (FILE_SIGNING_SECRET) wins; otherwise a random key persisted in the
 * data directory, so issued URLs survive restarts.
 */
export function loadOrCreateSigningSecret(dataDir: string, configured?: string): Buffer {
  if (configured !== undefined) return configuredSecret(configured);
  makePrivateDir(dataDir);
  const keyPath = join(dataDir, SIGNING_KEY_FILE_NAME);
  return readSecretFile(keyPath) ?? createSecretFile(keyPath);
}

function configuredSecret(configured: string): Buffer {
  if (configured.length < MIN_CONFIGURED_SECRET_LENGTH) {
    throw new GatewayError(
      'internal',
      `FILE_SIGNING_SECRET must be at least ${MIN_CONFIGURED_SECRET_LENGTH} characters long`,
    );
  }
  return Buffer.from(configured, 'utf8');
}

function readSecretFile(keyPath: string): Buffer | null {
  let secret: Buffer;
  try {
    secret = readFileSync(keyPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (secret.length < SECRET_BYTES) {
    throw new GatewayError('internal', `${keyPath} is shorter than ${SECRET_BYTES} bytes; remove it to regenerate`);
  }
  return secret;
}

export const newSigningSecret = (): Buffer => randomBytes(SECRET_BYTES);

function createSecretFile(keyPath: string): Buffer {
  const secret = newSigningSecret();
  try {
    writeFileSync(keyPath, secret, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    // Another process created it first: use theirs so both sign alike.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(keyPath);
    throw error;
  }
}
