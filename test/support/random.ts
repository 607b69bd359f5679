/**
 * Randomness a failing test can replay: a seeded generator (mulberry32) whose seed is printed
 * when it is made; TEST_SEED=<seed> runs the same choices again.
 */
export function seededRandom(label: string): () => number {
  const seed = (process.env.TEST_SEED ? Number(process.env.TEST_SEED) : Math.floor(Math.random() * 2 ** 32)) >>> 0;
  process.stdout.write(`${label}: random seed ${seed} (replay with TEST_SEED=${seed})\n`);
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
