/**
 * Runs tasks with at most `limit` in flight, results in task order. One long request queues its
 * calls gradually instead of filling an engine's queue (and being refused as overloaded by it).
 */
export async function runAtMost<T>(limit: number, tasks: ReadonlyArray<() => Promise<T>>): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}
