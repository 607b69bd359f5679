// @ts-check
// asr (AI-7): the transcript, and segment times that play the recording from there.
import { callOperation, requestId } from './api.js';
import { t } from './i18n.js';
import { h } from './page.js';
import { filePanel } from './try-it.js';

/** 83450 → "1:23.4" */
function clock(/** @type {number} */ ms) {
  const minutes = Math.floor(ms / 60000);
  return `${minutes}:${((ms % 60000) / 1000).toFixed(1).padStart(4, '0')}`;
}

export const asrPanel = filePanel({
  id: 'asr',
  heading: 'asrTitle',
  fileLabel: 'recording',
  accept: 'audio/*',
  async run(_file, upload, originalUrl) {
    const response = await callOperation('asr', { request_id: requestId(), voice_url: upload.file_url });
    const audio = h('audio', { controls: true, src: originalUrl, preload: 'metadata', 'aria-label': t('recording') });
    const playFrom = (/** @type {number} */ ms) => {
      audio.currentTime = ms / 1000;
      audio.play().catch(() => {});
    };
    return [
      audio,
      h('h3', {}, t('transcript')),
      h('p', { 'data-field': 'text' }, response.text),
      h('h3', {}, t('segments')),
      h('ol', { class: 'segments' }, response.segments.map((segment) =>
        h('li', {},
          h('button', { type: 'button', class: 'link', 'data-start-ms': segment.start_ms, onclick: () => playFrom(segment.start_ms) },
            `${clock(segment.start_ms)}–${clock(segment.end_ms)}`),
          ` ${segment.text}`,
        ))),
    ];
  },
});
