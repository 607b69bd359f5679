import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { readFile } from 'node:fs/promises';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { adviceJobStatus } from '../contract/advice.js';
import { adviceErrorBody, errorBody } from '../contract/errors.js';
import { OPERATIONS, type OperationContract } from '../contract/operations.js';
import { ERROR_KINDS } from '../errors.js';

/** The project's LICENSE (this file sits in src/http/ or dist/http/, two below the root). */
const LICENCE_FILE = new URL('../../LICENSE', import.meta.url);
const LICENCE_PATH = '/docs/licence';

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as Record<string, unknown>;

function errorStatuses(): number[] {
  return [...new Set(Object.values(ERROR_KINDS).map((k) => k.status))].filter((s) => s !== 499).sort();
}

/** Each kind of a status with its default `retryable` and when it happens (which says when the default flips). */
function errorKindsByStatus(status: number): string {
  return Object.entries(ERROR_KINDS)
    .filter(([, spec]) => spec.status === status)
    .map(([kind, spec]) => `${kind} (retryable: ${spec.retryable}): ${spec.when}`)
    .join('; ');
}

/** A 503 may tell when to retry (a full queue, an engine starting). */
const retryAfterHeader = {
  'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
};

function operationPath(op: OperationContract) {
  const errorSchema = jsonSchema(op.errorBody, 'output');
  const errors = Object.fromEntries(
    errorStatuses().map((status) => [
      String(status),
      {
        description: `error kinds: ${errorKindsByStatus(status)}`,
        ...(status === 503 ? { headers: retryAfterHeader } : {}),
        content: { 'application/json': { schema: errorSchema } },
      },
    ]),
  );
  return {
    post: {
      operationId: op.operationId,
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

const jsonContent = (schema: z.ZodType) => ({ 'application/json': { schema: jsonSchema(schema, 'output') } });

/** Any route answers a URL it cannot read with 400. */
const badUrl = { description: 'invalid_request: the request URL is malformed', content: jsonContent(errorBody) };

const plainGet = (operationId: string, summary: string, responses: Record<string, unknown>, security: unknown[] = []) => ({
  get: { operationId, summary, tags: ['operations'], security, responses: { ...responses, '400': badUrl } },
});

/** The answers of a route that needs an operator token (OPERATOR_TOKENS). */
const operatorOnly = (body: z.ZodType) => ({
  '401': { description: 'unauthorized: tokens are set and no valid bearer token was sent', content: jsonContent(body) },
  '403': { description: 'forbidden: a client token; this route needs an operator token (OPERATOR_TOKENS)', content: jsonContent(body) },
});

export function buildOpenApiDocument(version: string, publicBaseUrl: string) {
  return {
    openapi: '3.0.3',
    info: {
      title: 'mdt-ai-gateway',
      version,
      description:
        'Offline AI operations for multidisciplinary cancer consultations. Every error answers ' +
        '{error:{kind,message,retryable}} (AI-3: kind and message only).',
      license: { name: 'Proprietary: for use inside the hospital that runs this gateway', url: `${publicBaseUrl}${LICENCE_PATH}` },
    },
    servers: [{ url: publicBaseUrl, description: 'this gateway (PUBLIC_BASE_URL)' }],
    tags: [
      ...Object.values(OPERATIONS).map((op) => ({ name: op.label, description: op.summary })),
      { name: 'files', description: 'produced files (de-identified case files)' },
      { name: 'operations', description: 'health, readiness and metrics, for operators and probes' },
    ],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }, {}],
    paths: {
      ...Object.fromEntries(Object.values(OPERATIONS).map((op) => [op.path, operationPath(op)])),
      [`${OPERATIONS.reportAdviceDraft.path}/{request_id}`]: {
        get: {
          operationId: 'getReportAdviceDraftStatus',
          tags: [OPERATIONS.reportAdviceDraft.label],
          summary: 'AI-3 job state and attempt history (an operator token; no patient text)',
          parameters: [{ name: 'request_id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'the job', content: jsonContent(adviceJobStatus) },
            ...operatorOnly(adviceErrorBody),
            '404': {
              description: 'not_found: no job with this request_id (never submitted, or purged after ADVICE_RETENTION_DAYS)',
              content: jsonContent(adviceErrorBody),
            },
          },
        },
      },
      [`${OPERATIONS.reportAdviceDraft.path}/{request_id}/redeliver`]: {
        post: {
          operationId: 'redeliverReportAdviceDraft',
          tags: [OPERATIONS.reportAdviceDraft.label],
          summary: 'Deliver the callback of a dead AI-3 job again, with a fresh retry horizon (an operator token)',
          parameters: [{ name: 'request_id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'the job, now delivering', content: jsonContent(adviceJobStatus) },
            ...operatorOnly(adviceErrorBody),
            '404': { description: 'not_found: no job with this request_id', content: jsonContent(adviceErrorBody) },
            '409': { description: 'conflict: the job is not dead', content: jsonContent(adviceErrorBody) },
          },
        },
      },
      '/files/{token}': {
        get: {
          operationId: 'downloadFile',
          summary: 'Download a produced file through its signed, expiring URL',
          tags: ['files'],
          security: [],
          parameters: [{ name: 'token', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'the file', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
            '403': { description: 'forbidden: malformed or tampered token', content: jsonContent(errorBody) },
            '404': { description: 'not_found: the file is gone', content: jsonContent(errorBody) },
            '410': { description: 'expired: the link has expired', content: jsonContent(errorBody) },
          },
        },
      },
      '/healthz': plainGet('getHealth', 'Liveness', { '200': { description: 'the process is alive' } }),
      '/readyz': plainGet(
        'getReadiness',
        'Readiness: the status alone without an Authorization header (for probes); with an operator token, the state of every engine and why',
        {
          '200': { description: 'every configured engine is ready' },
          '503': { description: 'a configured engine is not ready; with an operator token, each engine says why' },
          ...operatorOnly(errorBody),
        },
        [{}, { bearer: [] }],
      ),
      '/metrics': plainGet('getMetrics', 'Prometheus metrics (an operator token)', { '200': { description: 'text exposition format' }, ...operatorOnly(errorBody) }, [
        { bearer: [] },
      ]),
    },
  };
}

export interface DocsRoutesOptions {
  version: string;
  publicBaseUrl: string;
}

export const docsRoutes: FastifyPluginAsync<DocsRoutesOptions> = async (app, { version, publicBaseUrl }) => {
  const document = buildOpenApiDocument(version, publicBaseUrl);
  const licence = await readFile(LICENCE_FILE, 'utf8');
  app.get(LICENCE_PATH, { schema: { hide: true } }, async (_request, reply) => reply.type('text/plain; charset=utf-8').send(licence));
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, { routePrefix: '/docs' });
};
