/**
 * One name per model file everywhere an operator reads one: the manifests (the shipped one and
 * the test models'), models/README.md, the operator's guide, the README and docker-compose.yml.
 * A file the guide names but the manifest spells differently is a step that fails on site.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../src/platform/models/manifest.js';
import { REPO_ROOT } from '../../scripts/lib/paths.js';

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
const DOCUMENTS = ['docs/operators-guide.md', 'models/README.md', 'README.md', 'docker-compose.yml', 'Dockerfile', 'Dockerfile.gpu'];

const shipped = await loadManifest(join(REPO_ROOT, 'models/manifest.json'));
const test = await loadManifest(join(REPO_ROOT, 'test/fixtures/models/manifest.json'));
const known = new Set([...shipped.models, ...test.models].map((m) => m.file));

describe('model file names', () => {
  it.each(DOCUMENTS)('%s sets LLM_MODEL and WHISPER_MODEL only to files a manifest lists', (file) => {
    const values = [...read(file).matchAll(/\b(?:LLM_MODEL|WHISPER_MODEL)(?:=|: )([\w.+-]+\.(?:gguf|bin))\b/g)].map((m) => m[1]!);
    for (const value of values) expect(known, `${file}: ${value}`).toContain(value);
  });

  it.each(['docs/operators-guide.md', 'models/README.md'])('%s names GGUF files only as the manifests spell them', (file) => {
    const generated = /^random-qwen2\.5-[\d.]+b-q8_0\.gguf$/; // npm run models:test -- --shape …, never fetched
    const names = [...read(file).matchAll(/[\w.+-]+\.gguf\b/g)].map((m) => m[0]).filter((name) => !generated.test(name) && !name.startsWith('.'));
    for (const name of names) expect(known, `${file}: ${name}`).toContain(name);
  });

  it('models/README.md lists every model of the shipped manifest', () => {
    const readme = read('models/README.md');
    for (const model of shipped.models) expect(readme, model.file).toContain(`\`${model.file}\``);
  });

  it("docker-compose.yml runs the gpu profile's models", () => {
    const compose = read('docker-compose.yml');
    const gpu = shipped.profiles.gpu!.map((id) => shipped.models.find((m) => m.id === id)!.file);
    expect(gpu).toContain(/LLM_MODEL: (\S+)/.exec(compose)?.[1]);
    expect(gpu).toContain(/WHISPER_MODEL: (\S+)/.exec(compose)?.[1]);
  });

  it("models/README.md's table of test models gives the bytes and sha256 the test manifest pins", () => {
    const readme = read('models/README.md');
    for (const model of test.models) {
      const row = readme.split('\n').find((line) => line.includes(`\`${model.file}\``));
      expect(row, model.file).toContain(model.bytes!.toLocaleString('en-US'));
      expect(row, model.file).toContain(model.sha256!);
    }
  });
});
