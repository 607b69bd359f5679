/**
 * The AI operations under /ai/v1, one encapsulated plugin: its own bearer-token hook (when
 * API_TOKENS is set) and error handlers. AI-3's routes sit in a child context of their own,
 * whose errors carry kind and message only.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { z } from 'zod';
import { OPERATIONS, type OperationContract } from '../contract/operations.js';
import { GatewayError } from '../errors.js';
import type { OperationContext, OperationHandler } from '../operations/context.js';
import { transcribeRecording } from '../operations/asr/transcribe.js';
import { processCaseFiles } from '../operations/case-file-process/case-file-process.js';
import { caseOcr } from '../operations/case-ocr/case-ocr.js';
import type { AdviceJobs } from '../operations/report-advice-draft/jobs.js';
import { processSpeech } from '../operations/speech-process/process-speech.js';
import { bearerAuth } from './auth.js';
import { clientAbortSignal } from './client-signal.js';
import { adviceErrorBody, standardErrorBody, useErrorShape } from './errors.js';

/** What the operations share: everything in their context but the caller's signal and log. */
export type OperationServices = Omit<OperationContext, 'signal' | 'log'>;

export interface AiRoutesOptions {
  apiTokens: readonly string[];
  services: OperationServices;
  adviceJobs: AdviceJobs;
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

function registerOperation<Req extends z.ZodType>(
  app: FastifyInstance,
  url: string,
  contract: OperationContract<Req>,
  handler: OperationHandler<z.output<Req>, unknown>,
  services: OperationServices,
): void {
  app.post(url, { config: { operation: contract.id } }, async (request, reply) => {
    const body = parseRequest(contract.request, request.body);
    request.bodyRequestId = (body as { request_id?: string }).request_id;
    let log: FastifyBaseLogger | undefined;
    const result = await handler(body, {
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

export const aiRoutes: FastifyPluginAsync<AiRoutesOptions> = async (ai, { apiTokens, services, adviceJobs }) => {
  if (apiTokens.length > 0) ai.addHook('onRequest', bearerAuth(apiTokens));
  useErrorShape(ai, standardErrorBody);
  const { speechProcess, caseFileProcess, caseOcr: ocr, asr, reportAdviceDraft } = OPERATIONS;
  registerOperation(ai, `/${speechProcess.id}`, speechProcess, processSpeech, services);
  registerOperation(ai, `/${caseFileProcess.id}`, caseFileProcess, processCaseFiles, services);
  registerOperation(ai, `/${ocr.id}`, ocr, caseOcr, services);
  registerOperation(ai, `/${asr.id}`, asr, transcribeRecording, services);
  const adviceRoutes: FastifyPluginAsync = async (advice) => {
    useErrorShape(advice, adviceErrorBody);
    registerOperation(advice, '/', reportAdviceDraft, (request) => adviceJobs.accept(request), services);
    advice.get<{ Params: { request_id: string } }>('/:request_id', { config: { operation: 'report-advice-status' } }, (request) =>
      adviceJobs.status(request.params.request_id),
    );
    advice.post<{ Params: { request_id: string } }>(
      '/:request_id/redeliver',
      { config: { operation: 'report-advice-redeliver' } },
      (request) => adviceJobs.redeliver(request.params.request_id),
    );
  };
  await ai.register(adviceRoutes, { prefix: `/${reportAdviceDraft.id}` });
};

declare module 'fastify' {
  interface FastifyContextConfig {
    operation?: string;
  }
  interface FastifyRequest {
    /** The body's request_id once the body passed validation; logged with every line of the request. */
    bodyRequestId: string | undefined;
  }
}
