import { GatewayError } from '../../errors.js';
import type { LlmJsonRequest } from '../types.js';

/** What a generation ended with, whichever engine ran it. */
export interface RawAnswer {
  text: string;
  /** Whether generation stopped at the output limit (maxTokens) rather than by itself. */
  cutOff: boolean;
  /** Why it stopped, in the engine's words, for the message. */
  stopReason: string;
}

/** The model's text as the schema's value, or a retryable engine_failed that says what was wrong. */
export function parseAnswer<T>(answer: RawAnswer, schema: LlmJsonRequest<T>['schema'], maxTokens: number): T {
  let value: unknown;
  try {
    value = JSON.parse(answer.text);
  } catch {
    throw new GatewayError(
      'engine_failed',
      answer.cutOff
        ? `the model's JSON was cut off at the output limit (maxTokens ${maxTokens}) before it was complete`
        : `the model's output is not valid JSON (stopped: ${answer.stopReason})`,
      { retryable: true },
    );
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    // Paths and issue codes only: zod's messages may quote the (patient) values.
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.code}`)
      .join('; ');
    throw new GatewayError('engine_failed', `the model's JSON does not match the expected schema (${issues})`, {
      retryable: true,
    });
  }
  return parsed.data;
}
