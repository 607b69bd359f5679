import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * Fields that may hold patient data. The gateway never logs request bodies, but should any of
 * these reach a log call anyway (up to three levels deep in the logged object) they are censored.
 */
const PATIENT_FIELDS = new Set([
  'speech_text',
  'text',
  'ocr_result',
  'ocr_text',
  'advice_draft',
  'content',
  'diagnosis',
  'key_question',
  'case_summary',
  'dept_opinions',
  'supplements',
  'doctor',
  'name',
  'patient_info',
  'points',
  'source_text',
  'value',
  'conclusion',
  'file_url',
  'voice_url',
  'file_name',
  'body',
  'authorization',
]);

const CENSORED = '[redacted]';
const CENSOR_DEPTH = 3;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/**
 * A key-set lookup per field: pino's path-based `redact` with wildcards cost ~27 µs per line
 * here, this costs about one.
 */
export function censorPatientFields(object: Record<string, unknown>, depth = CENSOR_DEPTH): Record<string, unknown> {
  const censored: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (PATIENT_FIELDS.has(key)) censored[key] = CENSORED;
    else if (depth > 1 && isPlainObject(value)) censored[key] = censorPatientFields(value, depth - 1);
    else if (depth > 1 && Array.isArray(value)) {
      censored[key] = value.map((item: unknown) => (isPlainObject(item) ? censorPatientFields(item, depth - 1) : item));
    } else censored[key] = value;
  }
  return censored;
}

export type { Logger };

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'mdt-ai-gateway' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), log: (object) => censorPatientFields(object) },
    },
    destination,
  );
}

/** What a log line may say about an error: its type and call sites, never its message (which may quote input). */
export function describeError(error: unknown): { type: string; code?: string; frames?: string } {
  if (!(error instanceof Error)) return { type: typeof error };
  const code = (error as { code?: unknown }).code;
  const frames = error.stack
    ?.split('\n')
    .filter((line) => line.trimStart().startsWith('at '))
    .slice(0, 8)
    .map((line) => line.trim())
    .join(' | ');
  return { type: error.name, ...(typeof code === 'string' ? { code } : {}), ...(frames ? { frames } : {}) };
}
