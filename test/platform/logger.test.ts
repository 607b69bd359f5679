import { describe, expect, it } from 'vitest';
import { censorPatientFields, createLogger, describeError } from '../../src/platform/logger.js';

function capture() {
  const lines: string[] = [];
  const logger = createLogger('info', { write: (line: string) => lines.push(line) });
  return { logger, lines };
}

describe('log censoring', () => {
  it('censors patient fields at the top and up to three levels down, in arrays too', () => {
    expect(
      censorPatientFields({
        speech_text: '患者张三',
        count: 3,
        request: { name: '张三', nested: { content: '意见', keep: 1 } },
        files: [{ file_name: '张三.jpg', upload_file_id: 7 }],
      }),
    ).toEqual({
      speech_text: '[redacted]',
      count: 3,
      request: { name: '[redacted]', nested: { content: '[redacted]', keep: 1 } },
      files: [{ file_name: '[redacted]', upload_file_id: 7 }],
    });
  });

  it('applies to every line the logger writes', () => {
    const { logger, lines } = capture();
    logger.info({ patient_info: { name: 'SENTINEL' }, ocr_result: 'SENTINEL', operation: 'case-ocr' }, 'done');
    expect(lines.join('')).not.toContain('SENTINEL');
    expect(JSON.parse(lines[0]!)).toMatchObject({ operation: 'case-ocr', ocr_result: '[redacted]' });
  });

  it('describes errors by type, code and call sites, never by message', () => {
    const error = Object.assign(new Error('SENTINEL in message'), { code: 'E_FAIL' });
    const described = describeError(error);
    expect(described).toMatchObject({ type: 'Error', code: 'E_FAIL' });
    expect(JSON.stringify(described)).not.toContain('SENTINEL');
    expect(described.frames).toMatch(/^at /);
  });
});
