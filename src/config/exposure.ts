/**
 * Whether the gateway runs where a site's network reaches it, which is when settings left open
 * for a developer's machine become a risk worth a warning at start.
 */
import { isIP } from 'node:net';
import type { Config } from './index.js';

/** `localhost`, 127.0.0.0/8 or ::1 (bracketed or not). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
}

/**
 * In production: `NODE_ENV=production` (the shipped images and the systemd unit set it, also
 * behind a reverse proxy on loopback), or listening on an address other machines can reach.
 */
export function runsInProduction(host: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return env.NODE_ENV === 'production' || !isLoopbackHost(host);
}

/** The start-up warning for a production gateway that fetches from any host, or null. */
export function fetchAllowlistWarning(config: Config, env: NodeJS.ProcessEnv = process.env): string | null {
  if (config.fetch.allowHosts.length > 0 || !runsInProduction(config.server.host, env)) return null;
  return (
    'FETCH_ALLOW_HOSTS is not set: file_url / voice_url may point at any host this machine reaches, private ranges ' +
    "included; set it to the object store(s) (operator's guide §10.2)"
  );
}
