import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * eslint's import-x/no-cycle guards the runtime graph; this guards the whole graph, type-only
 * imports included, since a cycle of types is still two modules that cannot be understood apart.
 */
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'(\.{1,2}\/[^']+)'/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((match) => resolve(dirname(file), match[1]!.replace(/\.js$/, '.ts')));
    graph.set(file, targets);
  }
  return graph;
}

/** Every cycle's members, found by a depth-first walk that reports a back edge. */
function findCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push(stack.slice(stack.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

describe('the import graph of src/', () => {
  it('has no cycle, type-only imports included', () => {
    const cycles = findCycles(importGraph()).map((cycle) => cycle.map((file) => relative(SRC, file)).join(' → '));
    expect(cycles).toEqual([]);
  });

  it('the cycle finder sees a cycle when there is one', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(findCycles(graph)).toEqual([['a', 'b', 'c']]);
  });
});
