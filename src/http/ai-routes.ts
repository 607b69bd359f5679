/**
 * The AI operations under /ai/v1, one encapsulated plugin: its own bearer-token hook (when
 * API_TOKENS is set). Each operation sits in a child context of its own, whose errors take the
 * shape its contract gives them; one that finishes its work later also answers for its jobs.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { z } from 'zod';
import type { OperationContract } from '../contract/operations.js';
import { GatewayError } from '../errors.js';
import type { DeferredJobs, OperationContext, StartedOperation } from '../operations/index.js';
import { bearerAuth } from './auth.js';
import { clientAbortSignal } from './client-signal.js';
import { standardErrorBody, useErrorShape, type ErrorBodyOf } from './errors.js';

/** What the operations share on every request: everything in their context but the caller's signal and log. */
export type OperationServices = Omit<OperationContext, 'signal' | 'log'>;

export interface ServedOperation {
  contract: OperationContract<z.ZodType, z.ZodType, string>;
  started: StartedOperation<unknown>;
}

export interface AiRoutesOptions {
  apiTokens: readonly string[];
  services: OperationServices;
  operations: readonly ServedOperation[];
}

const MAX_REPORTED_ISSUES = 5;

/** "points[0].seq: duplicate seq; speech_text: Too small..." — names the fields, never echoes their values. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const described = issues.slice(0, MAX_REPORTED_ISSUES).map((issue) => {
    const path = issue.path.reduce<string>(
      (text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${String(part)}` : String(part)),
      '',
    );
    return `${path || 'body'}: ${issue.message}`;
  });
  const more = issues.length > MAX_REPORTED_ISSUES ? `; and ${issues.length - MAX_REPORTED_ISSUES} more` : '';
  return described.join('; ') + more;
}

function parseRequest<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new GatewayError('invalid_request', describeIssues(parsed.error.issues));
  return parsed.data;
}

function registerOperation(route: FastifyInstance, { contract, started }: ServedOperation, services: OperationServices): void {
  route.post('/', { config: { operation: contract.id } }, async (request, reply) => {
    const body = parseRequest(contract.request, request.body);
    request.bodyRequestId = (body as { request_id?: string }).request_id;
    request.uploadFileIds = (body as { files?: Array<{ upload_file_id: number }> }).files?.map((file) => file.upload_file_id);
    let log: FastifyBaseLogger | undefined;
    const result = await started.handle(body, {
      ...services,
      signal: clientAbortSignal(reply),
      get log() {
        return (log ??= request.log.child({ request_id: request.bodyRequestId }));
      },
    });
    const checked = contract.response.safeParse(result);
    if (!checked.success) {
      const issues = describeIssues(checked.error.issues);
      request.log.error({ request_id: request.bodyRequestId, issues }, 'operation result broke the contract');
      throw new GatewayError('internal', 'the operation produced a result outside the contract; it has been logged');
    }
    return reply.code(contract.successStatus).send(checked.data);
  });
}

function registerJobRoutes(route: FastifyInstance, labels: NonNullable<ServedOperation['contract']['jobRoutes']>, jobs: DeferredJobs): void {
  route.get<{ Params: { request_id: string } }>('/:request_id', { config: { operation: labels.status } }, (request) =>
    jobs.status(request.params.request_id),
  );
  route.post<{ Params: { request_id: string } }>('/:request_id/redeliver', { config: { operation: labels.redeliver } }, (request) =>
    jobs.redeliver(request.params.request_id),
  );
}

/** An error as the contract shows it: `{error:{kind,message,retryable}}`, less what its schema leaves out. */
const errorBodyOf =
  (contract: ServedOperation['contract']): ErrorBodyOf =>
  ({ kind, message, retryable }) =>
    contract.errorBody.parse({ error: { kind, message, retryable } });

export const aiRoutes: FastifyPluginAsync<AiRoutesOptions> = async (ai, { apiTokens, services, operations }) => {
  if (apiTokens.length > 0) ai.addHook('onRequest', bearerAuth(apiTokens));
  useErrorShape(ai, standardErrorBody);
  for (const operation of operations) {
    const { contract, started } = operation;
    const routes: FastifyPluginAsync = async (route) => {
      useErrorShape(route, errorBodyOf(contract));
      registerOperation(route, operation, services);
      if (contract.jobRoutes && started.jobs) registerJobRoutes(route, contract.jobRoutes, started.jobs);
    };
    await ai.register(routes, { prefix: `/${contract.id}` });
  }
};

declare module 'fastify' {
  interface FastifyContextConfig {
    operation?: string;
  }
  interface FastifyRequest {
    /** The body's request_id once the body passed validation; logged with every line of the request. */
    bodyRequestId: string | undefined;
    /** The body's upload_file_ids (AI-4, AI-5) once the body passed validation, for the audit trail. */
    uploadFileIds: number[] | undefined;
  }
}
