import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/contract/operations.js';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(() => gateway.close());

describe('OpenAPI document', () => {
  it('is served at /docs/json as OpenAPI 3 with every operation, its schemas and an example', async () => {
    const response = await gateway.app.inject({ url: '/docs/json' });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toMatch(/^3\./);
    for (const op of Object.values(OPERATIONS)) {
      const post = document.paths[op.path].post;
      const request = post.requestBody.content['application/json'];
      expect(request.example).toEqual(op.example.request);
      expect(request.schema.required).toContain('request_id');
      const success = post.responses[String(op.successStatus)].content['application/json'];
      expect(success.example).toEqual(op.example.response);
      expect(post.responses['503'].description).toContain('engine_unavailable');
      // When each kind is retryable, and the header that says when.
      expect(post.responses['503'].description).toMatch(/engine_unavailable \(retryable: false\): .*starting.*retryable with `Retry-After`/);
      expect(post.responses['503'].headers['Retry-After'].schema.type).toBe('integer');
      const errorProperties = post.responses['400'].content['application/json'].schema.properties.error.properties;
      expect(Object.keys(errorProperties).sort()).toEqual(op.id === 'report-advice-draft' ? ['kind', 'message'] : ['kind', 'message', 'retryable']);
    }
  });

  it('derives field rules from the zod schemas', async () => {
    const document = (await gateway.app.inject({ url: '/docs/json' })).json();
    const speech = document.paths['/ai/v1/speech-process'].post.requestBody.content['application/json'].schema;
    expect(speech.properties.points.minItems).toBe(1);
    expect(speech.properties.speech_text.minLength).toBe(1);
    expect(speech.required).not.toContain('voice_segments');
  });

  it('serves the UI at /docs from local assets', async () => {
    const page = await gateway.app.inject({ url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs)/);
  });
});

describe('OpenAPI document lint (redocly, recommended rules)', () => {
  it('has no error and no warning as a deployed gateway serves it, so generated clients read well', async () => {
    const { createConfig, lintFromString } = await import('@redocly/openapi-core');
    const deployed = await startGateway({ PUBLIC_BASE_URL: 'https://mdt-ai.hospital.internal' });
    const source = (await deployed.app.inject({ url: '/docs/json' })).body;
    await deployed.close();
    expect(JSON.parse(source).servers).toEqual([{ url: 'https://mdt-ai.hospital.internal', description: expect.any(String) }]);
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config: await createConfig({ extends: ['recommended'] }) });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ''})`)).toEqual([]);
  });

  it('links the licence, which the gateway serves', async () => {
    const document = (await gateway.app.inject({ url: '/docs/json' })).json();
    const licence = await gateway.app.inject({ url: new URL(document.info.license.url).pathname });
    expect(licence.statusCode).toBe(200);
    expect(licence.body).toContain('Proprietary software');
  });

  it('gives every operation a stable operationId', async () => {
    const document = (await gateway.app.inject({ url: '/docs/json' })).json();
    const ids = Object.values(document.paths as Record<string, Record<string, { operationId: string }>>).flatMap((path) =>
      Object.values(path).map((operation) => operation.operationId),
    );
    expect(ids.sort()).toEqual(
      [
        'asr',
        'caseFileProcess',
        'caseOcr',
        'downloadFile',
        'getHealth',
        'getMetrics',
        'getReadiness',
        'getReportAdviceDraftStatus',
        'redeliverReportAdviceDraft',
        'reportAdviceDraft',
        'speechProcess',
      ].sort(),
    );
  });
});
