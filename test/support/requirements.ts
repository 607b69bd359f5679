/**
 * Tools a suite needs beyond npm packages, each as a reason it cannot run (null: it can). Pass
 * the reason to describeWithTools / itWithTools (tools.ts): skipped locally, failing with
 * REQUIRE_ENGINES=1 as CI runs.
 */
import { postgresBinDir } from './postgres.js';

/** A real PostgreSQL server (Debian's `postgresql` package) for the shared-store suites. */
export function postgresMissing(): string | null {
  return postgresBinDir() === null ? 'PostgreSQL server binaries (apt-get install postgresql)' : null;
}
