/**
 * Who may call what: bearer tokens in two roles, each token with a name for the audit trail.
 *
 *   API_TOKENS       client tokens: /ai/v1 (the AI operations)
 *   OPERATOR_TOKENS  operator tokens: the console API, AI-3 job views and redelivery, /metrics and
 *                    the detailed /readyz; an operator token also works on /ai/v1
 *
 * Both lists are written `name=token,name2=token2`. A gateway with no token at all is open to
 * whoever reaches it, which it allows only on a loopback HOST or with ALLOW_OPEN_ACCESS=true; once
 * any token is set, every route but the open ones (health, docs, the console page, file links)
 * needs a token of its role, and a role with no tokens is closed.
 */
import { isIP } from 'node:net';

export type Role = 'client' | 'operator';

export interface NamedToken {
  /** What the audit trail and the logs call whoever presents the token; never the token. */
  name: string;
  token: string;
  role: Role;
  /** An entry of API_TOKENS written without a name (before 0.2): named by its position. */
  unnamed: boolean;
}

const TOKEN_NAME = /^[A-Za-z0-9][\w.-]{0,63}$/;
export const MIN_TOKEN_CHARS = 16;
export const MAKE_TOKEN = 'make one with: openssl rand -hex 32';

/** An entry's name and token: split at the first `=` (a token may hold `=`, a name may not). */
function splitEntry(entry: string): { name?: string; token: string } {
  const at = entry.indexOf('=');
  return at < 0 ? { token: entry } : { name: entry.slice(0, at).trim(), token: entry.slice(at + 1).trim() };
}

const entriesOf = (list: string) =>
  list
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);

/**
 * Reads a token list: `name=token` entries (or, where `allowUnnamed`, a bare token named
 * `token <position>`). Problems name the entry by position, never quote a token.
 */
export function parseTokenList(list: string, role: Role, allowUnnamed: boolean): { tokens: NamedToken[]; problems: string[] } {
  const tokens: NamedToken[] = [];
  const problems: string[] = [];
  entriesOf(list).forEach((entry, index) => {
    const position = index + 1;
    const { name, token } = splitEntry(entry);
    if (name === undefined && !allowUnnamed) problems.push(`entry ${position} has no name: write it name=token`);
    else if (name !== undefined && !TOKEN_NAME.test(name)) {
      problems.push(`entry ${position}: a name is 1–64 letters, digits, '_', '.' or '-', starting with a letter or digit`);
    } else if (token.length < MIN_TOKEN_CHARS || /\s/.test(token)) {
      problems.push(`entry ${position}: a token is at least ${MIN_TOKEN_CHARS} characters without spaces; ${MAKE_TOKEN}`);
    } else tokens.push({ name: name ?? `token ${position}`, token, role, unnamed: name === undefined });
  });
  return { tokens, problems };
}

/** The token of a list's first entry (the self-test calls with it). */
export function firstToken(list: string | undefined): string | undefined {
  const [first] = entriesOf(list ?? '');
  return first === undefined ? undefined : splitEntry(first).token;
}

/** `localhost`, 127.0.0.0/8 or ::1 (bracketed or not): a listen address only this machine reaches. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
}

/** The settings access is decided from. */
export interface AccessSettings {
  host: string;
  apiTokens: readonly NamedToken[];
  operatorTokens: readonly NamedToken[];
  allowOpenAccess: boolean;
}

/** Every token of both roles, and whether the gateway has none (then every route is open). */
export function accessTokens({ apiTokens, operatorTokens }: Pick<AccessSettings, 'apiTokens' | 'operatorTokens'>): { open: boolean; tokens: readonly NamedToken[] } {
  const tokens = [...apiTokens, ...operatorTokens];
  return { open: tokens.length === 0, tokens };
}

/** Why the gateway must not start with these settings: one line per problem, naming the setting. */
export function accessProblems(settings: AccessSettings): string[] {
  const problems: string[] = [];
  if (settings.apiTokens.length === 0 && !isLoopbackHost(settings.host) && !settings.allowOpenAccess) {
    problems.push(
      `API_TOKENS: required when HOST (${settings.host}) is not a loopback address: set name=token entries (${MAKE_TOKEN}), or ALLOW_OPEN_ACCESS=true to serve without tokens`,
    );
  }
  const seenNames = new Set<string>();
  const seenTokens = new Set<string>();
  for (const { name, token, role } of accessTokens(settings).tokens) {
    const setting = role === 'client' ? 'API_TOKENS' : 'OPERATOR_TOKENS';
    if (seenNames.has(name)) problems.push(`${setting}: the name ${name} is given twice; each token needs a name of its own`);
    if (seenTokens.has(token)) problems.push(`${setting}: the token named ${name} is listed twice (once in each list, or twice in one)`);
    seenNames.add(name);
    seenTokens.add(token);
  }
  return problems;
}
