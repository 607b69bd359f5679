import { access, constants, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium (apt-get install chromium): playwright-core drives it, and never downloads a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Quiet, offline and repeatable: no sandbox (CI runs as root), no GPU, no background traffic. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function chromiumMissing(): Promise<string | null> {
  try {
    await access(CHROMIUM_PATH, constants.X_OK);
    return null;
  } catch {
    return `chromium not installed at ${CHROMIUM_PATH} (apt-get install chromium)`;
  }
}

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless chromium on a new, empty profile, in `locale`; the profile is deleted on close. */
export async function openBrowser(locale = 'en-GB'): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    locale,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
