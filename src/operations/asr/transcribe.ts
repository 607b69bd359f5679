import type { AsrRequest, AsrResponse, TranscriptSegment } from '../../contract/asr.js';
import type { Transcript } from '../../engines/types.js';
import type { OperationContext } from '../context.js';

/** AI-7: fetch the recording safely, transcribe it, and answer segments that always keep the spec's invariants. */
export async function transcribeRecording(request: AsrRequest, context: OperationContext): Promise<AsrResponse> {
  context.engines.requireReady('asr');
  const recording = await context.fetcher.fetch(request.voice_url, {
    accept: ['audio'],
    signal: context.signal,
    label: 'voice_url',
  });
  const transcript = await context.engines.run('asr', context.signal, (engine, signal) =>
    engine.transcribe({ bytes: recording.bytes, mediaType: recording.media.mediaType }, signal),
  );
  return toAsrResponse(transcript);
}

const toMs = (value: number) => (Number.isFinite(value) ? Math.max(0, Math.round(value)) : 0);

/**
 * Whatever an engine returns: integer milliseconds, start_ms >= 0, end_ms >= start_ms, in time
 * order, no empty segments, and a full text that is never empty when segments hold words.
 */
export function toAsrResponse(transcript: Transcript): AsrResponse {
  const segments: TranscriptSegment[] = transcript.segments
    .map((segment) => {
      const start_ms = toMs(segment.startMs);
      return { start_ms, end_ms: Math.max(start_ms, toMs(segment.endMs)), text: segment.text.trim() };
    })
    .filter((segment) => segment.text.length > 0)
    .sort((a, b) => a.start_ms - b.start_ms || a.end_ms - b.end_ms);
  const text = transcript.text.trim() || joinSegmentTexts(segments);
  return { text, segments };
}

/** Chinese runs join without spaces; other scripts with one space. */
function joinSegmentTexts(segments: TranscriptSegment[]): string {
  return segments.reduce((joined, { text }) => {
    if (!joined) return text;
    const needsSpace = /[\p{L}\p{N}]$/u.test(joined) && /^[\p{L}\p{N}]/u.test(text) && !/\p{Script=Han}$/u.test(joined);
    return joined + (needsSpace ? ' ' : '') + text;
  }, '');
}
