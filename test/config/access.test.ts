/**
 * Closed unless configured (issue 27 item 1), at the configuration: which settings the gateway
 * refuses to start with, each refusal naming its setting and never quoting a token or secret.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, webhookKey } from '../../src/config/index.js';

const CLIENT = 'platform=client-0123456789abcdef';
const OPERATOR = 'it-desk=operator-0123456789abcdef';
/** 32 bytes, in the Standard Webhooks form. */
const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;

function problems(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  return [];
}

describe('tokens and the listen address', () => {
  it.each(['0.0.0.0', '::', '10.1.2.3', 'gateway.hospital.local'])('refuses HOST=%s without API_TOKENS, naming the setting', (host) => {
    const [problem, ...more] = problems({ HOST: host });
    expect(more).toEqual([]);
    expect(problem).toMatch(/^API_TOKENS: required when HOST \(.+\) is not a loopback address/);
    expect(problem).toContain('ALLOW_OPEN_ACCESS=true');
  });

  it('refuses a non-loopback HOST with operator tokens only: clients need tokens of their own', () => {
    expect(problems({ HOST: '0.0.0.0', OPERATOR_TOKENS: OPERATOR })[0]).toMatch(/^API_TOKENS: required/);
  });

  it.each([
    { HOST: '127.0.0.1' },
    { HOST: 'localhost' },
    { HOST: '::1' },
    { HOST: '0.0.0.0', API_TOKENS: CLIENT },
    { HOST: '0.0.0.0', ALLOW_OPEN_ACCESS: 'true' },
    {},
  ])('starts with %j', (env) => {
    expect(problems(env)).toEqual([]);
  });

  it('refuses a name or a token given twice, without quoting the token', () => {
    const found = problems({ API_TOKENS: `${CLIENT},platform=another-0123456789abcdef`, OPERATOR_TOKENS: 'desk=client-0123456789abcdef' });
    expect(found).toEqual([
      'API_TOKENS: the name platform is given twice; each token needs a name of its own',
      'OPERATOR_TOKENS: the token named desk is listed twice (once in each list, or twice in one)',
    ]);
  });

  it.each([
    ['platform=', /entry 1: a token is at least 16 characters/],
    ['=client-0123456789abcdef', /entry 1: a name is 1–64 letters/],
    ['ok=client-0123456789abcdef,-x=other-0123456789abcdef', /entry 2: a name/],
    ['platform=has spaces in the token', /entry 1: a token is at least 16 characters without spaces/],
    ['platform=short-token', /openssl rand -hex 32/],
  ])('refuses API_TOKENS=%j, naming the entry, never the token', (list, message) => {
    const found = problems({ API_TOKENS: list });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^API_TOKENS: /);
    expect(found[0]).toMatch(message);
    expect(found[0]).not.toMatch(/client-0123|other-0123|short-token|has spaces/);
  });
});

describe('callback secrets', () => {
  it('refuses CALLBACK_BASE_URL without CALLBACK_SECRET, naming it and how to make one', () => {
    expect(problems({ CALLBACK_BASE_URL: 'http://mdt.hospital.local' })).toEqual([
      'CALLBACK_SECRET: required with CALLBACK_BASE_URL (make one with: echo "whsec_$(openssl rand -base64 32)"), or CALLBACK_ALLOW_UNSIGNED=true to send callbacks unsigned',
    ]);
  });

  it('starts unsigned only with CALLBACK_ALLOW_UNSIGNED=true', () => {
    expect(problems({ CALLBACK_BASE_URL: 'http://mdt.hospital.local', CALLBACK_ALLOW_UNSIGNED: 'true' })).toEqual([]);
    expect(problems({ CALLBACK_BASE_URL: 'http://mdt.hospital.local', CALLBACK_SECRET: SECRET })).toEqual([]);
  });

  it.each([
    ['plain text of enough length', 'a-plain-text-secret-of-forty-characters!', /must start with whsec_/],
    ['a dropped character', `whsec_${Buffer.alloc(32, 1).toString('base64').slice(0, 20)}!${Buffer.alloc(32, 1).toString('base64').slice(20)}`, /standard base64/],
    ['base64url', `whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}`, /standard base64/],
    ['missing padding', `whsec_${Buffer.alloc(32, 1).toString('base64').replace(/=+$/, '')}`, /standard base64/],
    ['16 characters of whsec_', 'whsec_MfKQ9r8GKYqr', /decodes to 9 bytes, at least 24/],
    ['23 bytes', `whsec_${Buffer.alloc(23, 1).toString('base64')}`, /decodes to 23 bytes/],
  ])('refuses %s, saying how to make one, never quoting it', (_case, secret, message) => {
    for (const name of ['CALLBACK_SECRET', 'CALLBACK_SECRET_PREVIOUS']) {
      const [problem, ...more] = problems({ [name]: secret });
      expect(more).toEqual([]);
      expect(problem).toMatch(new RegExp(`^${name}: `));
      expect(problem).toMatch(message);
      expect(problem).toContain('openssl rand -base64 32');
      expect(problem).not.toContain(secret.slice(6, 20));
    }
  });

  it('the key of a secret is its decoded bytes', () => {
    expect(webhookKey(SECRET)).toEqual(Buffer.alloc(32, 1));
    expect(() => webhookKey('not-a-secret')).toThrow(/whsec_/);
  });
});
