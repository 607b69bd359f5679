/** A valid request body for each operation's route, for tests of what every route must do. */
export const VALID_BODIES = {
  '/ai/v1/speech-process': {
    request_id: 'req-1',
    cancer_type: '肺癌',
    standard_department_code: 'RAD',
    points: [
      { seq: 1, name: '影像学表现' },
      { seq: 2, name: '分期意见' },
    ],
    speech_text: '右肺上叶见肿块，分期T2N1M0。',
  },
  '/ai/v1/report-advice-draft': {
    request_id: 'req-2',
    cancer_type: '肺癌',
    case_summary: { diagnosis: '右肺腺癌', key_question: '是否手术' },
    dept_opinions: [{ dept: '胸外科', content: '建议手术', supplements: [{ doctor: '张医生', content: '完善检查' }] }],
  },
  '/ai/v1/case-file-process': {
    request_id: 'req-3',
    files: [{ upload_file_id: 1, bucket: 'b', object_key: 'k/1.jpg', file_name: '1.jpg', file_url: 'http://127.0.0.1:9/1.jpg' }],
  },
  '/ai/v1/case-ocr': {
    request_id: 'req-4',
    files: [{ upload_file_id: 1, bucket: 'b', object_key: 'k/1.jpg', file_name: '1.jpg', file_url: 'http://127.0.0.1:9/1.jpg' }],
  },
  '/ai/v1/asr': { request_id: 'req-5', voice_url: 'http://127.0.0.1:9/1.wav' },
} as const;

export type OperationPath = keyof typeof VALID_BODIES;
export const OPERATION_PATHS = Object.keys(VALID_BODIES) as OperationPath[];
