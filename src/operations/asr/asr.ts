import { join } from 'node:path';
import type { AsrRequest, AsrResponse, TranscriptSegment } from '../../contract/asr.js';
import { joinSegmentTexts } from '../../engines/asr/index.js';
import type { Transcript } from '../../engines/types.js';
import { withTempDir } from '../../platform/temp.js';
import { OPERATIONS } from '../../contract/operations.js';
import type { OperationContext } from '../context.js';
import { statelessOperation } from '../operation.js';

/**
 * AI-7: stream the recording to a private temp file (never held in memory), transcribe it, and
 * answer segments that always keep the spec's invariants. The file is deleted whatever happens.
 */
async function transcribeRecording(request: AsrRequest, context: OperationContext): Promise<AsrResponse> {
  context.engines.requireReady('asr');
  const transcript = await withTempDir('voice', async (dir) => {
    const recording = await context.fetcher.download(request.voice_url, {
      accept: ['audio'],
      signal: context.signal,
      label: 'voice_url',
      log: context.log,
      path: join(dir, 'recording'),
    });
    return context.engines.run('asr', context.signal, (engine, signal) =>
      engine.transcribe({ path: recording.path, mediaType: recording.media.mediaType }, signal),
    );
  });
  return toAsrResponse(transcript);
}

export const asrOperation = statelessOperation(OPERATIONS.asr, transcribeRecording);

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
  const text = transcript.text.trim() || joinSegmentTexts(segments.map((segment) => segment.text));
  return { text, segments };
}
