import { describe, expect, it } from 'vitest';
import { formatEngineReport } from '../../src/engines/engine-report.js';

describe('formatEngineReport', () => {
  it('lines up one row per engine', () => {
    const table = formatEngineReport({
      llm: { state: 'ready', configured: true, model: 'q.gguf@abc', verified: true, device: 'cpu', threads: 2, concurrency: 2 },
      asr: { state: 'unavailable', configured: false, reason: 'WHISPER_MODEL is not set', threads: 2, concurrency: 1 },
    });
    expect(table.split('\n')).toEqual([
      'engine  state        model       sha256    device  threads  concurrency  reason',
      'llm     ready        q.gguf@abc  verified  cpu     2        2',
      'asr     unavailable  -           -         -       2        1            WHISPER_MODEL is not set',
    ]);
  });
});
