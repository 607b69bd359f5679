import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { ADVICE_PATH, OPERATIONS, type OperationContract } from '../contract/operations.js';
import { GatewayError } from '../errors.js';
import type { OperationContext, OperationHandler } from '../operations/context.js';
import { transcribeRecording } from '../operations/asr/transcribe.js';
import { processCaseFiles } from '../operations/case-file-process/case-file-process.js';
import { caseOcr } from '../operations/case-ocr/case-ocr.js';
import { processSpeech } from '../operations/speech-process/process-speech.js';
import { clientAbortSignal } from './client-signal.js';

type Dependencies = Omit<OperationContext, 'signal' | 'log'>;

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
  contract: OperationContract<Req>,
  handler: OperationHandler<z.output<Req>, unknown>,
  dependencies: Dependencies,
): void {
  app.post(contract.path, { config: { operation: contract.id } }, async (request, reply) => {
    const body = parseRequest(contract.request, request.body);
    request.bodyRequestId = (body as { request_id?: string }).request_id;
    let log: FastifyBaseLogger | undefined;
    const result = await handler(body, {
      ...dependencies,
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

export function registerOperationRoutes(app: FastifyInstance, dependencies: Dependencies): void {
  registerOperation(app, OPERATIONS.speech, processSpeech, dependencies);
  registerOperation(app, OPERATIONS.advice, (request, context) => context.adviceJobs.accept(request), dependencies);
  app.get<{ Params: { request_id: string } }>(`${ADVICE_PATH}/:request_id`, { config: { operation: 'report-advice-status' } }, (request) =>
    dependencies.adviceJobs.status(request.params.request_id),
  );
  registerOperation(app, OPERATIONS.caseFiles, processCaseFiles, dependencies);
  registerOperation(app, OPERATIONS.caseOcr, caseOcr, dependencies);
  registerOperation(app, OPERATIONS.asr, transcribeRecording, dependencies);
}

declare module 'fastify' {
  interface FastifyContextConfig {
    operation?: string;
  }
  interface FastifyRequest {
    /** The body's request_id once the body passed validation; logged with every line of the request. */
    bodyRequestId: string | undefined;
  }
}
