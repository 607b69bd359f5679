import { z } from 'zod';
import { ERROR_KINDS } from '../errors.js';

const kind = z.enum(Object.keys(ERROR_KINDS) as [keyof typeof ERROR_KINDS, ...(keyof typeof ERROR_KINDS)[]]);

export const errorBody = z.object({
  error: z.object({ kind, message: z.string(), retryable: z.boolean() }),
});

/** AI-3 shows only kind and message. */
export const adviceErrorBody = z.object({
  error: z.object({ kind, message: z.string() }),
});
