import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';

const GROUP_OR_OTHERS = 0o077;

/** Takes group's and others' rights from `path` when it has any; false when there is no such file. */
function keepToOwner(path: string, mode: number): boolean {
  let current: number;
  try {
    current = statSync(path).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  if ((current & GROUP_OR_OTHERS) !== 0) chmodSync(path, mode);
  return true;
}

/**
 * A folder only its owner can enter (0700), created if missing, tightened if it is looser: the
 * image, an operator or an older gateway may have created it 0755.
 */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  keepToOwner(dir, 0o700);
}

/** A file only its owner can read (0600), created empty if missing, tightened if it is looser. */
export function makePrivateFile(path: string): void {
  if (keepToOwner(path, 0o600)) return;
  closeSync(openSync(path, 'a', 0o600));
}

/** Tightens `path` to 0600 where it exists and is looser; a missing file is left missing. */
export function keepFileToOwner(path: string): void {
  keepToOwner(path, 0o600);
}
