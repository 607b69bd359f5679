import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { adviceJobStatus } from '../contract/advice.js';
import { adviceErrorBody } from '../contract/errors.js';
import { ADVICE_PATH, OPERATIONS, type OperationContract } from '../contract/operations.js';
import { ERROR_KINDS } from '../errors.js';

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as Record<string, unknown>;

function errorStatuses(): number[] {
  return [...new Set(Object.values(ERROR_KINDS).map((k) => k.status))].filter((s) => s !== 499).sort();
}

function errorKindsByStatus(status: number): string {
  return Object.entries(ERROR_KINDS)
    .filter(([, spec]) => spec.status === status)
    .map(([kind]) => kind)
    .join(', ');
}

function operationPath(op: OperationContract) {
  const errorSchema = jsonSchema(op.errorBody, 'output');
  const errors = Object.fromEntries(
    errorStatuses().map((status) => [
      String(status),
      { description: `error kinds: ${errorKindsByStatus(status)}`, content: { 'application/json': { schema: errorSchema } } },
    ]),
  );
  return {
    post: {
      operationId: op.id,
      tags: [op.label],
      summary: `${op.label}: ${op.summary}`,
      requestBody: {
        required: true,
        content: { 'application/json': { schema: jsonSchema(op.request, 'input'), example: op.example.request } },
      },
      responses: {
        [String(op.successStatus)]: {
          description: op.successStatus === 202 ? 'accepted' : 'success',
          content: { 'application/json': { schema: jsonSchema(op.response, 'output'), example: op.example.response } },
        },
        ...errors,
      },
    },
  };
}

const plainGet = (summary: string, description: string) => ({
  get: { summary, tags: ['operations'], responses: { '200': { description } } },
});

export function buildOpenApiDocument(version: string) {
  return {
    openapi: '3.0.3',
    info: {
      title: 'mdt-ai-gateway',
      version,
      description:
        'Offline AI operations for multidisciplinary cancer consultations. Every error answers ' +
        '{error:{kind,message,retryable}} (AI-3: kind and message only).',
    },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }, {}],
    paths: {
      ...Object.fromEntries(Object.values(OPERATIONS).map((op) => [op.path, operationPath(op)])),
      [`${ADVICE_PATH}/{request_id}`]: {
        get: {
          operationId: 'report-advice-draft-status',
          tags: [OPERATIONS.advice.label],
          summary: 'AI-3 job state and attempt history, for operators (no patient text)',
          parameters: [{ name: 'request_id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'the job', content: { 'application/json': { schema: jsonSchema(adviceJobStatus, 'output') } } },
            '404': {
              description: 'not_found: no job with this request_id (never submitted, or purged after ADVICE_RETENTION_DAYS)',
              content: { 'application/json': { schema: jsonSchema(adviceErrorBody, 'output') } },
            },
          },
        },
      },
      '/files/{token}': {
        get: {
          summary: 'Download a produced file through its signed, expiring URL',
          tags: ['files'],
          parameters: [{ name: 'token', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'the file' },
            '403': { description: 'forbidden: malformed or tampered token' },
            '404': { description: 'not_found: the file is gone' },
            '410': { description: 'expired: the link has expired' },
          },
        },
      },
      '/healthz': plainGet('Liveness', 'the process is alive'),
      '/readyz': plainGet('Readiness and the state of every engine', 'ready; 503 when a configured engine is not'),
      '/metrics': plainGet('Prometheus metrics', 'text exposition format'),
    },
  };
}

export async function registerDocs(app: FastifyInstance, version: string): Promise<void> {
  const document = buildOpenApiDocument(version);
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, { routePrefix: '/docs' });
}
