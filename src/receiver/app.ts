/**
 * Reference platform receiver for AI callbacks: verifies the Standard Webhooks signature,
 * validates the body against the contract, deduplicates on webhook-id (delivery is
 * at-least-once) and stores the draft in ai_advice_ref, never in treatment_advice.
 */
import type Database from 'better-sqlite3';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { z } from 'zod';
import { CALLBACK_PATH, REFERENCE_REPORT_PATH, adviceCallback, type AdviceCallback } from '../contract/advice.js';
import { verifyCallback, type CallbackSignatureHeaders, type CallbackVerification } from '../operations/report-advice-draft/callbacks/signature.js';
import { describeError, type Logger } from '../platform/logger.js';
import { createReceiverStore } from './store.js';


export interface ReceiverOptions {
  db: Database.Database;
  /** May be absent only with allowUnsigned; then every signed callback is refused. */
  secret: string | undefined;
  /** While the key is rotated: the other one; a signature made with either verifies. */
  previousSecret?: string | undefined;
  toleranceSeconds: number;
  /** Accept callbacks that carry no signature headers at all (a gateway without CALLBACK_SECRET). */
  allowUnsigned: boolean;
  logger: Logger;
}

type ParsedCallback = { ok: true; callback: AdviceCallback } | { ok: false; status: 400 | 422; kind: string; message: string };

function sendError(reply: FastifyReply, status: number, kind: string, message: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ error: { kind, message } });
}

function headerText(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function signatureHeaders(request: FastifyRequest): CallbackSignatureHeaders {
  return {
    id: headerText(request, 'webhook-id'),
    timestamp: headerText(request, 'webhook-timestamp'),
    signature: headerText(request, 'webhook-signature'),
  };
}

function authenticate(headers: CallbackSignatureHeaders, rawBody: string, options: ReceiverOptions): CallbackVerification {
  const unsigned = headers.id === undefined && headers.timestamp === undefined && headers.signature === undefined;
  if (unsigned && options.allowUnsigned) return { ok: true };
  if (options.secret === undefined) return { ok: false, reason: 'bad_signature' };
  const secrets = options.previousSecret === undefined ? [options.secret] : [options.secret, options.previousSecret];
  return verifyCallback(secrets, headers, rawBody, { toleranceSeconds: options.toleranceSeconds });
}

/** Our own wording, naming the field: zod's default messages are terse and generic. */
function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'too_big' && issue.origin === 'string') {
    return `longer than ${Number(issue.maximum).toLocaleString('en-US')} characters`;
  }
  if (issue.code === 'custom' && issue.path.at(-1) === 'advice_draft') return 'empty after removing whitespace';
  return issue.message;
}

function parseCallback(rawBody: string): ParsedCallback {
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    return { ok: false, status: 400, kind: 'invalid_request', message: 'request body is not valid JSON' };
  }
  const parsed = adviceCallback.safeParse(json);
  if (parsed.success) return { ok: true, callback: parsed.data };
  const issue = parsed.error.issues[0]!;
  const field = issue.path.length > 0 ? issue.path.join('.') : '(body)';
  return { ok: false, status: 422, kind: 'invalid_callback', message: `${field}: ${describeIssue(issue)}` };
}

const FRAMEWORK_ERRORS: Record<number, { kind: string; message: string }> = {
  413: { kind: 'payload_too_large', message: 'request body is too large' },
  415: { kind: 'unsupported_media', message: 'Content-Type must be application/json' },
};

export async function buildReceiverApp(options: ReceiverOptions): Promise<FastifyInstance> {
  const store = createReceiverStore(options.db);
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
  });

  // The signature covers the exact bytes sent, so the body stays a string until verified.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.setErrorHandler<FastifyError>((error, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: describeError(error) }, 'internal error');
      return sendError(reply, 500, 'internal', 'an internal error occurred; it has been logged');
    }
    const known = FRAMEWORK_ERRORS[status] ?? { kind: 'invalid_request', message: 'the request could not be read' };
    return sendError(reply, status, known.kind, known.message);
  });
  app.setNotFoundHandler((_request, reply) => sendError(reply, 404, 'not_found', 'no such route'));

  app.post(CALLBACK_PATH, (request, reply) => {
    const rawBody = typeof request.body === 'string' ? request.body : '';
    const headers = signatureHeaders(request);
    const verification = authenticate(headers, rawBody, options);
    if (!verification.ok) {
      request.log.warn({ webhook_id: headers.id, outcome: 'unauthorized', reason: verification.reason }, 'callback refused');
      return sendError(reply, 401, 'unauthorized', `callback signature refused: ${verification.reason}`);
    }
    const parsed = parseCallback(rawBody);
    if (!parsed.ok) {
      request.log.warn({ webhook_id: headers.id, outcome: parsed.kind }, 'callback refused');
      return sendError(reply, parsed.status, parsed.kind, parsed.message);
    }
    const { callback } = parsed;
    const outcome = store.applyCallback(headers.id, callback, new Date());
    request.log.info(
      { webhook_id: headers.id, request_id: callback.request_id, status: callback.status, outcome },
      'callback received',
    );
    return reply.send({ status: outcome });
  });

  app.get<{ Params: { request_id: string } }>(REFERENCE_REPORT_PATH, (request, reply) => {
    const report = store.findReport(request.params.request_id);
    if (!report) return sendError(reply, 404, 'not_found', 'no report with this request_id');
    return reply.send(report);
  });

  await app.ready();
  return app;
}
