import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startGateway } from '../../../scripts/lib/gateway.js';

describe('startGateway', () => {
  it('keeps its own data dir when the environment names another (the evals pass the shell’s)', async () => {
    const operatorData = await mkdtemp(join(tmpdir(), 'operator-data-'));
    try {
      const gateway = await startGateway({ DATA_DIR: operatorData });
      await gateway.close();
      expect(gateway.config.server.dataDir).toBe(gateway.dataDir);
      expect(existsSync(gateway.dataDir)).toBe(false);
      expect(await readdir(operatorData)).toEqual([]);
    } finally {
      await rm(operatorData, { recursive: true, force: true });
    }
  });
});
