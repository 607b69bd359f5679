import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/contract/operations.js';
import { LIMITS } from '../../src/contract/limits.js';
import { startGateway, type TestGateway } from '../../scripts/lib/gateway.js';
import { OPERATION_PATHS, VALID_BODIES } from '../support/valid-bodies.js';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(() => gateway.close());

const post = (url: string, payload: unknown) => gateway.app.inject({ method: 'POST', url, payload: payload as object });

describe('every operation validates its body against the contract', () => {
  it.each(OPERATION_PATHS)('%s: a valid body passes validation and meets the missing engine (503)', async (path) => {
    const response = await post(path, VALID_BODIES[path]);
    expect(response.statusCode).toBe(503);
    expect(response.json().error.kind).toBe('engine_unavailable');
  });

  it.each(OPERATION_PATHS)('%s: unknown extra fields are ignored', async (path) => {
    const response = await post(path, { ...VALID_BODIES[path], surprise: { nested: true }, another: 1 });
    expect(response.json().error.kind).toBe('engine_unavailable');
  });

  it.each(OPERATION_PATHS)('%s: a missing request_id is a 400 naming the field', async (path) => {
    const { request_id: _dropped, ...rest } = VALID_BODIES[path];
    const response = await post(path, rest);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.kind).toBe('invalid_request');
    expect(response.json().error.message).toContain('request_id');
  });

  it.each(OPERATION_PATHS)('%s: an empty request_id is a 400', async (path) => {
    const response = await post(path, { ...VALID_BODIES[path], request_id: '' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain('request_id');
  });

  it.each(OPERATION_PATHS)('%s: a JSON array instead of an object is a 400', async (path) => {
    const response = await post(path, [1, 2]);
    expect(response.statusCode).toBe(400);
  });
});

describe('speech-process rules', () => {
  const body = VALID_BODIES['/ai/v1/speech-process'];
  const cases: Array<[string, object, string]> = [
    ['empty points', { points: [] }, 'points'],
    ['empty speech_text', { speech_text: '' }, 'speech_text'],
    ['duplicate seq', { points: [{ seq: 1, name: 'a' }, { seq: 1, name: 'b' }] }, 'points[1].seq: duplicate seq'],
    ['non-integer seq', { points: [{ seq: 1.5, name: 'a' }] }, 'points[0].seq'],
    ['too many points', { points: Array.from({ length: LIMITS.points + 1 }, (_, i) => ({ seq: i, name: `p${i}` })) }, 'points'],
    ['speech_text over the maximum', { speech_text: '字'.repeat(LIMITS.speechTextChars + 1) }, 'speech_text'],
    ['voice segment ending before it starts', { voice_segments: [{ voice_url: 'http://x/a.wav', start_ms: 10, end_ms: 5, text: 'a' }] }, 'voice_segments[0].end_ms'],
  ];
  it.each(cases)('%s is a 400', async (_name, change, field) => {
    const response = await post('/ai/v1/speech-process', { ...body, ...change });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ kind: 'invalid_request', retryable: false });
    expect(response.json().error.message).toContain(field);
  });

  it('accepts voice_segments when present and when absent', async () => {
    const withSegments = { ...body, voice_segments: [{ voice_url: 'http://x/a.wav', start_ms: 0, end_ms: 900, text: '右肺' }] };
    expect((await post('/ai/v1/speech-process', withSegments)).statusCode).toBe(503);
    expect((await post('/ai/v1/speech-process', body)).statusCode).toBe(503);
  });
});

describe('case files rules', () => {
  const body = VALID_BODIES['/ai/v1/case-ocr'];
  const file = body.files[0];
  it.each(['/ai/v1/case-ocr', '/ai/v1/case-file-process'])('%s: empty, duplicate and too many files are 400s', async (path) => {
    expect((await post(path, { ...body, files: [] })).statusCode).toBe(400);
    const duplicate = await post(path, { ...body, files: [file, file] });
    expect(duplicate.json().error.message).toContain('files[1].upload_file_id: duplicate upload_file_id');
    const many = Array.from({ length: LIMITS.filesPerRequest + 1 }, (_, i) => ({ ...file, upload_file_id: i }));
    expect((await post(path, { ...body, files: many })).statusCode).toBe(400);
    expect((await post(path, { ...body, files: [{ ...file, upload_file_id: 'one' }] })).statusCode).toBe(400);
  });
});

describe('report-advice-draft errors show only kind and message', () => {
  it('answers a schema violation without retryable', async () => {
    const response = await post('/ai/v1/report-advice-draft', { request_id: 'r', dept_opinions: [] });
    expect(response.statusCode).toBe(400);
    const { error } = response.json();
    expect(Object.keys(error).sort()).toEqual(['kind', 'message']);
    expect(error.message).toContain('dept_opinions');
  });

  it('answers a missing engine without retryable', async () => {
    const response = await post('/ai/v1/report-advice-draft', VALID_BODIES['/ai/v1/report-advice-draft']);
    expect(response.statusCode).toBe(503);
    expect(Object.keys(response.json().error).sort()).toEqual(['kind', 'message']);
  });
});

describe('the worked examples are themselves valid', () => {
  it.each(Object.values(OPERATIONS).map((op) => [op.id, op] as const))('%s example request and response', (_id, op) => {
    expect(op.request.safeParse(op.example.request).success).toBe(true);
    expect(op.response.safeParse(op.example.response).success).toBe(true);
  });
});
