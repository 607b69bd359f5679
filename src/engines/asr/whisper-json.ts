/**
 * Reads the JSON file whisper-cli writes with `-oj`. whisper.cpp 1.9.1 escapes only `"` and `\`
 * in strings, so a segment may hold raw control characters (invalid JSON) and bytes that are
 * not valid UTF-8 (a character split across tokens, or noise from a bad model); both are
 * repaired here rather than failing the request.
 */
import { GatewayError } from '../../errors.js';
import type { Transcript } from '../types.js';
import { joinSegmentTexts } from './transcript-text.js';

interface WhisperJson {
  transcription?: Array<{ offsets?: { from?: unknown; to?: unknown }; text?: unknown }>;
}

/** Control characters inside JSON string literals, written as \u escapes; everything else untouched. */
export function escapeControlCharsInStrings(json: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  for (const char of json) {
    const code = char.charCodeAt(0);
    if (inString && code < 0x20) {
      out += `\\u${code.toString(16).padStart(4, '0')}`;
      continue;
    }
    out += char;
    if (escaped) escaped = false;
    else if (char === '\\') escaped = inString;
    else if (char === '"') inString = !inString;
  }
  return out;
}

const REPLACEMENT_CHAR = /\uFFFD/g;
const CONTROL_CHARS = /\p{Cc}/gu;

function cleanText(value: unknown): string {
  if (typeof value !== 'string') return '';
  return value.replace(REPLACEMENT_CHAR, '').replace(CONTROL_CHARS, ' ').replace(/\s+/g, ' ').trim();
}

const millis = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.round(value)) : 0);

/**
 * Segments in time order with 0 <= start_ms <= end_ms <= the audio's duration, empty ones
 * dropped, and the full text joined from them.
 */
export function parseWhisperJson(bytes: Uint8Array, audioMs: number): Transcript {
  let parsed: WhisperJson;
  try {
    parsed = JSON.parse(escapeControlCharsInStrings(new TextDecoder('utf-8').decode(bytes))) as WhisperJson;
  } catch {
    throw new GatewayError('engine_failed', 'whisper-cli wrote output that is not JSON');
  }
  if (!Array.isArray(parsed.transcription)) throw new GatewayError('engine_failed', 'whisper-cli output has no transcription');
  const limit = Math.max(0, Math.round(audioMs));
  const segments = parsed.transcription
    .map((segment) => {
      const startMs = Math.min(millis(segment.offsets?.from), limit);
      const endMs = Math.min(Math.max(startMs, millis(segment.offsets?.to)), limit);
      return { startMs, endMs, text: cleanText(segment.text) };
    })
    .filter((segment) => segment.text.length > 0)
    .sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
  return { text: joinSegmentTexts(segments.map((segment) => segment.text)), segments };
}
