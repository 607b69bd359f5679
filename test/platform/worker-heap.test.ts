import { beforeEach, describe, expect, it, vi } from 'vitest';

const setFlagsFromString = vi.fn();
vi.mock('node:v8', () => ({ setFlagsFromString }));

beforeEach(() => {
  vi.resetModules();
  vi.unstubAllEnvs();
  setFlagsFromString.mockClear();
});

const load = async () => (await import('../../src/platform/process/worker-heap.js')).raiseWorkerOldSpaceFloor;

describe('raiseWorkerOldSpaceFloor', () => {
  it("sets V8's initial old-space size, which worker threads started afterwards take as their floor", async () => {
    (await load())(64);
    expect(setFlagsFromString).toHaveBeenCalledExactlyOnceWith('--initial-old-space-size=64');
  });

  it('never lowers a floor set already, and sets an equal one once', async () => {
    const raise = await load();
    raise(64);
    raise(32);
    raise(64);
    raise(96);
    expect(setFlagsFromString.mock.calls).toEqual([['--initial-old-space-size=64'], ['--initial-old-space-size=96']]);
  });

  it("leaves the floor of an operator who started node with one (NODE_OPTIONS or node's own flags)", async () => {
    vi.stubEnv('NODE_OPTIONS', '--max-old-space-size=4096 --initial-old-space-size=256');
    (await load())(64);
    expect(setFlagsFromString).not.toHaveBeenCalled();
  });
});
