import { createHash } from 'node:crypto';
import type { SpeechProcessRequest } from '../../contract/speech.js';

export interface ProcessorVersion {
  prompt: string;
  model: string;
}

/** JSON with object keys sorted at every level, so equal requests hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The same speech judged by the same prompts and model gets the same key, whatever its
 * request_id; a new model or prompt gives a new one.
 */
export function speechArtifactKey(request: SpeechProcessRequest, processor: ProcessorVersion): string {
  const { request_id: _requestId, ...content } = request;
  const digest = createHash('sha256')
    .update(canonicalJson({ content: { ...content, voice_segments: content.voice_segments ?? [] }, processor }))
    .digest('hex');
  return `speech_${digest.slice(0, 40)}`;
}
