/**
 * No Docker engine runs here, so the images are checked statically: a small Dockerfile parser
 * (instructions, line continuations, stages) and rules that catch what would break a build or
 * an air-gapped run: unknown instructions, missing COPY sources or npm scripts, a root user,
 * downloads in the final stage, no health check on /readyz.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/paths.js';

const INSTRUCTIONS = new Set([
  'FROM', 'RUN', 'CMD', 'LABEL', 'EXPOSE', 'ENV', 'ADD', 'COPY', 'ENTRYPOINT', 'VOLUME', 'USER', 'WORKDIR', 'ARG', 'ONBUILD',
  'STOPSIGNAL', 'HEALTHCHECK', 'SHELL',
]);

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/** Instructions in order: comments and blank lines dropped, backslash continuations joined. */
function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending: { text: string; line: number } | undefined;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trimEnd();
    if (!pending && (line.trim() === '' || line.trimStart().startsWith('#'))) return;
    if (pending && line.trimStart().startsWith('#')) return; // comments inside a continued RUN
    const continued = line.endsWith('\\');
    const part = continued ? line.slice(0, -1) : line;
    pending = pending ? { text: `${pending.text} ${part.trim()}`, line: pending.line } : { text: part.trim(), line: index + 1 };
    if (continued) return;
    const [keyword = '', ...rest] = pending.text.split(/\s+/);
    instructions.push({ keyword: keyword.toUpperCase(), args: rest.join(' '), line: pending.line });
    pending = undefined;
  });
  return instructions;
}

function stages(instructions: Instruction[]): Instruction[][] {
  return instructions.reduce<Instruction[][]>((all, instruction) => {
    if (instruction.keyword === 'FROM') all.push([]);
    all.at(-1)?.push(instruction);
    return all;
  }, []);
}

const scripts = Object.keys((JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: object }).scripts);

describe.each(['Dockerfile.gpu', 'Dockerfile'])('%s', (file) => {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8');
  const instructions = parseDockerfile(text);
  const final = stages(instructions).at(-1)!;

  it('uses only known instructions, starting with ARG or FROM', () => {
    for (const instruction of instructions) expect(INSTRUCTIONS, `line ${instruction.line}`).toContain(instruction.keyword);
    expect(['ARG', 'FROM']).toContain(instructions[0]!.keyword);
  });

  it('copies only paths that exist in the repository', () => {
    const copies = instructions.filter((i) => i.keyword === 'COPY' && !i.args.includes('--from='));
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const sources = copy.args.split(/\s+/).filter((a) => !a.startsWith('--')).slice(0, -1);
      for (const source of sources) expect(existsSync(join(REPO_ROOT, source)), `${source} (line ${copy.line})`).toBe(true);
    }
  });

  it('runs only npm scripts that package.json defines', () => {
    for (const run of instructions.filter((i) => i.keyword === 'RUN')) {
      for (const match of run.args.matchAll(/npm run ([\w:-]+)/g)) expect(scripts, `line ${run.line}`).toContain(match[1]);
    }
  });

  it('runs as a non-root user, checks /readyz, and starts the built gateway', () => {
    const user = final.filter((i) => i.keyword === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    expect(final.find((i) => i.keyword === 'HEALTHCHECK')?.args).toContain('/readyz');
    expect(final.find((i) => i.keyword === 'CMD')?.args).toContain('dist/main.js');
    expect(final.find((i) => i.keyword === 'ENV')?.args).toMatch(/MODELS_DIR=\/models .*DATA_DIR=\/data/);
  });

  it('downloads nothing in the final stage beyond its system packages, and ADDs no URL', () => {
    for (const instruction of final) expect(instruction.args, `line ${instruction.line}`).not.toMatch(/\b(curl|wget)\b|npm (install|ci)\b/);
    for (const add of instructions.filter((i) => i.keyword === 'ADD')) expect(add.args).not.toMatch(/https?:\/\//);
  });

  it('puts the models command on PATH, run from the built output', () => {
    expect(final.find((i) => i.keyword === 'RUN' && i.args.includes('mdt-models'))?.args).toContain('/app/dist/cli/models.js');
    expect((JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { bin: object }).bin).toEqual({
      'mdt-models': 'dist/cli/models.js',
    });
  });

  it('builds whisper-cli in the build stage and carries it into the final one', () => {
    expect(text).toContain('npm run setup:whisper');
    expect(final.some((i) => i.keyword === 'COPY' && i.args.includes('whisper-cli'))).toBe(true);
  });
});

describe('docker-compose.yml', () => {
  const text = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');

  it('builds the GPU image with a GPU reserved, models read-only and data in a volume', () => {
    const dockerfile = /dockerfile:\s*(\S+)/.exec(text)?.[1];
    expect(dockerfile && existsSync(join(REPO_ROOT, dockerfile))).toBe(true);
    expect(text).toMatch(/driver: nvidia[\s\S]*capabilities: \[gpu\]/);
    expect(text).toContain('./models:/models:ro');
    expect(text).toMatch(/read_only: true/);
  });
});

describe('parseDockerfile', () => {
  it('joins continued lines and skips comments', () => {
    expect(parseDockerfile('# c\nFROM a AS b\nRUN x \\\n  # note\n  && y\n')).toEqual([
      { keyword: 'FROM', args: 'a AS b', line: 2 },
      { keyword: 'RUN', args: 'x && y', line: 3 },
    ]);
  });
});

describe('both images', () => {
  it('run the same Node.js version', () => {
    const nodeVersion = (file: string) => /^ARG NODE_VERSION=(\S+)$/m.exec(readFileSync(join(REPO_ROOT, file), 'utf8'))?.[1];
    expect(nodeVersion('Dockerfile')).toBeDefined();
    expect(nodeVersion('Dockerfile.gpu')).toBe(nodeVersion('Dockerfile'));
  });
});
