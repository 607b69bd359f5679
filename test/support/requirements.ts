/**
 * The tools and data that engine tests need from the machine, declared in one place. A suite or
 * test that lacks one does not vanish: it is skipped with the reason, which the run lists at its
 * end (missing-tools-reporter.ts), and with REQUIRE_ENGINES=1 (CI) it fails instead.
 */
import { existsSync } from 'node:fs';
import { describe, it, type TestContext } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { findExecutable } from '../../src/engines/asr/index.js';
import { MISSING_REQUIREMENT } from './missing-tools-reporter.js';

/** Why a requirement is not met here, or null when it is. */
export type Requirement = () => Promise<string | null>;

export const WHISPER_CLI: Requirement = async () => {
  const { whisperBin } = loadConfig({}).asr;
  return (await findExecutable(whisperBin)) ? null : `whisper-cli not built (${whisperBin}): run npm run setup:whisper`;
};

export const FFMPEG: Requirement = async () => ((await findExecutable('ffmpeg')) ? null : 'ffmpeg not installed (apt-get install ffmpeg)');

export const DEBIAN_TESSDATA = '/usr/share/tesseract-ocr/5/tessdata';

export const DEBIAN_CHI_SIM: Requirement = async () =>
  existsSync(`${DEBIAN_TESSDATA}/chi_sim.traineddata`) ? null : `no ${DEBIAN_TESSDATA}/chi_sim.traineddata (apt-get install tesseract-ocr-chi-sim)`;

async function unmet(requirements: Requirement[]): Promise<string | null> {
  const reasons = (await Promise.all(requirements.map((requirement) => requirement()))).filter((reason) => reason !== null);
  return reasons.length > 0 ? reasons.join('; ') : null;
}

async function skipOrFail(context: TestContext, reason: string): Promise<void> {
  await context.annotate(reason, MISSING_REQUIREMENT);
  if (process.env.REQUIRE_ENGINES === '1') throw new Error(`REQUIRE_ENGINES=1 and this cannot run here: ${reason}`);
  context.skip(reason);
}

/** A describe() whose tests all need `requirements`; without them it is one test that says why it cannot run. */
export async function describeNeeding(requirements: Requirement[], name: string, body: () => void): Promise<void> {
  const reason = await unmet(requirements);
  if (reason === null) {
    describe(name, body);
    return;
  }
  describe(name, () => {
    it('needs tools this machine lacks', (context) => skipOrFail(context, reason));
  });
}

/** An it() that needs `requirements`, skipped (or failed) with the reason when they are missing. */
export function itNeeding(requirements: Requirement[], name: string, body: () => Promise<void>, timeout?: number): void {
  it(
    name,
    async (context) => {
      const reason = await unmet(requirements);
      if (reason !== null) return skipOrFail(context, reason);
      await body();
    },
    timeout,
  );
}
