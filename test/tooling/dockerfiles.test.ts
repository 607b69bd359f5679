/**
 * No Docker engine runs here, so the images are checked statically: a small Dockerfile parser
 * (instructions, line continuations, stages) and rules that catch what would break a build or
 * an air-gapped run: unknown instructions, missing COPY sources or npm scripts, a root user,
 * downloads in the final stage, no health check on /readyz, an image that is not the release
 * artefact CI tests, a tag that differs between the files that name it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { REPO_ROOT } from '../../scripts/lib/paths.js';

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

  it('runs as a non-root user, checks /readyz, and starts the unpacked release', () => {
    const user = final.filter((i) => i.keyword === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    expect(final.find((i) => i.keyword === 'HEALTHCHECK')?.args).toContain('/readyz');
    expect(final.find((i) => i.keyword === 'CMD')?.args).toBe('["mdt-gateway", "start"]');
    expect(final.find((i) => i.keyword === 'ENV')?.args).toMatch(/MODELS_DIR=\/models .*DATA_DIR=\/data/);
  });

  it('gives start-up time for hashing and loading models before the health check counts', () => {
    const period = /--start-period=(\d+)s/.exec(final.find((i) => i.keyword === 'HEALTHCHECK')!.args)?.[1];
    expect(Number(period)).toBeGreaterThanOrEqual(300);
  });

  it('downloads nothing in the final stage beyond its system packages, and ADDs no URL', () => {
    for (const instruction of final) expect(instruction.args, `line ${instruction.line}`).not.toMatch(/\b(curl|wget)\b|npm (install|ci)\b/);
    for (const add of instructions.filter((i) => i.keyword === 'ADD')) expect(add.args).not.toMatch(/https?:\/\//);
  });

  it('installs the lockfile with no install script, and compiles better-sqlite3 against Node\'s headers instead of fetching it', () => {
    const install = instructions.find((i) => i.keyword === 'RUN' && i.args.includes('npm install'))!;
    expect(install.args).toMatch(/npm install --no-audit --no-fund --ignore-scripts/);
    expect(install.args).toContain('npm rebuild better-sqlite3 --build-from-source --nodedir=/usr/local');
    expect(instructions.some((i) => i.keyword === 'COPY' && i.args.split(/\s+/).includes('.npmrc'))).toBe(true);
  });

  it('is a thin layer over the release artefact of its target: built, checked against SHA256SUMS, unpacked; no node_modules copied', () => {
    const target = file === 'Dockerfile' ? 'cpu' : 'cuda';
    expect(text).toContain(`npm run release -- --target ${target}`);
    expect(stages(instructions).some((stage) => /^scratch AS artefact$/.test(stage[0]!.args))).toBe(true);
    const unpack = final.find((i) => i.keyword === 'RUN' && i.args.includes('from=artefact'))!;
    expect(unpack.args).toContain('sha256sum --check --ignore-missing SHA256SUMS');
    expect(unpack.args).toContain(`mdt-ai-gateway-*-linux-x64-${target}.tar.gz`);
    expect(unpack.args).toContain('ln -s /app/bin/mdt-gateway /usr/local/bin/mdt-gateway');
    // The npm that comes with Node (a node_modules of its own) is the only one copied.
    for (const copy of instructions.filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from=node '))) {
      expect(copy.args, `line ${copy.line}`).not.toContain('node_modules');
    }
  });

  it('lets the gateway\'s user write the data and models volumes, nothing else', () => {
    const setup = final.find((i) => i.keyword === 'RUN' && i.args.includes('useradd'))!;
    expect(setup.args).toContain('useradd --system --uid 10001');
    expect(setup.args).toContain('chown gateway /data /models');
  });
});

describe('docker-compose.yml', () => {
  const text = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');

  it('builds the GPU image with a GPU reserved, models read-only and data in a volume', () => {
    const dockerfile = /dockerfile:\s*(\S+)/.exec(text)?.[1];
    expect(dockerfile && existsSync(join(REPO_ROOT, dockerfile))).toBe(true);
    expect(text).toMatch(/driver: nvidia[\s\S]*capabilities: \[gpu\]/);
    expect(text).toContain('- gateway-models:/models:ro');
    expect(text).toMatch(/read_only: true/);
  });

  it('gives the models tool the same volume writable, with no network', () => {
    const models = text.slice(text.indexOf('\n  models:'));
    expect(models).toContain('- gateway-models:/models\n');
    expect(models).toContain('network_mode: none');
    expect(models).toContain('entrypoint: ["mdt-gateway", "models"]');
  });

  it('waits longer than the gateway drains before killing it', () => {
    const grace = Number(/stop_grace_period: (\d+)s/.exec(text)?.[1]);
    expect(grace * 1000).toBeGreaterThan(loadConfig({}).server.shutdownTimeoutMs);
  });
});

describe('the image tag', () => {
  it('is <version>-cpu or <version>-gpu everywhere it is written', () => {
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    for (const file of ['Dockerfile', 'Dockerfile.gpu', 'docker-compose.yml', 'docs/operators-guide.md', 'README.md']) {
      const tags = [...readFileSync(join(REPO_ROOT, file), 'utf8').matchAll(/mdt-ai-gateway:([\w.$-]+)/g)].map((m) => m[1]);
      for (const tag of tags) expect([`${version}-cpu`, `${version}-gpu`], `${file}: mdt-ai-gateway:${tag}`).toContain(tag);
    }
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
