// @ts-check
// case-ocr (AI-5): the patient information read, and the page with a box round each line read beside its text.
import { callOperation, requestId } from './api.js';
import { t } from './i18n.js';
import { h } from './page.js';
import { figure, filePanel, fileReference } from './try-it.js';

/** @typedef {import('../../../contract/case-files.js').CaseOcrResponse} CaseOcrResponse */
/** @typedef {NonNullable<CaseOcrResponse['ocr_results'][number]['pages']>[number]} RecognizedPage */

const LINE_COLOUR = '#d00000';
/** @type {(keyof CaseOcrResponse['patient_info'])[]} */
const PATIENT_FIELDS = ['name', 'age', 'cancer_type', 'stage'];

/** The page turned straight and upright as it was read, each recognised line boxed. */
async function pageWithLines(/** @type {string} */ source, /** @type {RecognizedPage} */ page) {
  const image = new Image();
  image.src = source;
  await image.decode();
  const canvas = h('canvas', {
    class: 'page', width: page.width, height: page.height, role: 'img', 'aria-label': t('linesRead'), 'data-lines': page.lines.length,
  });
  const context = canvas.getContext('2d');
  if (!context) throw new Error('this browser draws no 2D canvas');
  // The image turned about its centre by the reading's angle (any angle for a photo taken askew).
  context.translate(page.width / 2, page.height / 2);
  context.rotate((page.rotation * Math.PI) / 180);
  context.drawImage(image, -image.naturalWidth / 2, -image.naturalHeight / 2);
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.strokeStyle = LINE_COLOUR;
  context.lineWidth = 2;
  for (const { box } of page.lines) context.strokeRect(box.x0, box.y0, box.x1 - box.x0, box.y1 - box.y0);
  return canvas;
}

/** The file as the browser shows it: a PDF in a viewer, anything else as an image. */
function preview(/** @type {string} */ source, /** @type {string} */ type, /** @type {string} */ label) {
  if (type === 'application/pdf') return h('object', { data: source, type, 'aria-label': label, class: 'page' });
  return h('img', { src: source, alt: label, class: 'page' });
}

export const caseOcrPanel = filePanel({
  id: 'case-ocr',
  heading: 'ocrTitle',
  fileLabel: 'fileLabel',
  accept: 'image/*,application/pdf',
  async run(file, upload, originalUrl) {
    const response = await callOperation('case-ocr', { request_id: requestId(), files: [fileReference(file, upload)], include_lines: true });
    const info = response.patient_info;
    const [result] = response.ocr_results;
    if (!result) throw new Error('the gateway answered no result for the file');
    const firstPage = result.pages?.[0];
    const picture = firstPage && file.type.startsWith('image/') ? await pageWithLines(originalUrl, firstPage) : preview(originalUrl, file.type, t('original'));
    return [
      h('h3', {}, t('patientInfo')),
      h('dl', { class: 'facts' }, PATIENT_FIELDS.map((field) => [
        h('dt', {}, t(field)), h('dd', { 'data-field': field }, info[field] ?? t('notFound')),
      ])),
      h('div', { class: 'side-by-side' },
        figure(t('linesRead'), picture),
        figure(t('text'), h('pre', { class: 'ocr-text', tabindex: 0 }, result.ocr_result)),
      ),
    ];
  },
});
