import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/contract/operations.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

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
