import { describe, it } from 'vitest';

/**
 * A suite that needs tools this machine may lack (whisper-cli, ffmpeg, Debian's tessdata). When
 * one is missing the suite is skipped with the reason in its name, and the skip reporter lists it
 * at the end of the run; with REQUIRE_ENGINES=1 (as CI runs) it fails instead, so a machine that
 * cannot run the engine suites never passes for one that did.
 */
export function describeWithTools(name: string, missing: string | null, body: () => void): void {
  if (missing === null) return void describe(name, body);
  if (process.env.REQUIRE_ENGINES === '1') {
    return void describe(name, () => {
      it('has the tools it needs (REQUIRE_ENGINES=1)', () => {
        throw new Error(`cannot run: ${missing}`);
      });
    });
  }
  describe.skip(`${name} ${skipNote(missing)}`, body);
}

/** The same for one test. */
export function itWithTools(name: string, missing: string | null, body: () => Promise<void>, timeoutMs?: number): void {
  if (missing === null) return void it(name, body, timeoutMs);
  if (process.env.REQUIRE_ENGINES === '1') {
    return void it(name, () => {
      throw new Error(`cannot run: ${missing}`);
    });
  }
  it.skip(`${name} ${skipNote(missing)}`, body);
}

const skipNote = (missing: string) => `[skipped: ${missing}]`;
