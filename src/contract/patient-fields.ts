/**
 * Wire fields (and the headers beside them) that may hold patient data or a secret: the logger
 * censors them wherever they appear in a logged object.
 */
export const PATIENT_FIELDS: ReadonlySet<string> = new Set([
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
