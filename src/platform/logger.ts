import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * Fields that may hold patient data. The gateway never logs request bodies, but should any of
 * these reach a log call anyway (in an object, up to three levels deep) pino censors them.
 */
const PATIENT_FIELDS = [
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
];

const REDACT_PATHS = PATIENT_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`, `*.*.*.${field}`]);

export type { Logger };

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'mdt-ai-gateway' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
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
