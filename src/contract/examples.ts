/** One worked example per operation, shown in the OpenAPI document and checked against the schemas in tests. */
const fileRef = {
  upload_file_id: 1001,
  bucket: 'mdt-case-files',
  object_key: 'case/2026/11/1001.jpg',
  file_name: '病理报告.jpg',
  file_url: 'http://object-store.hospital.local/mdt-case-files/case/2026/11/1001.jpg',
};

const processorVersion = { prompt: 'speech-v1@3f2a9c1e', model: 'qwen2.5-7b-instruct-q4_k_m.gguf@9b1c2d3e' };

export const EXAMPLES = {
  speechProcess: {
    request: {
      request_id: 'req-20261121-0001',
      cancer_type: '肺癌',
      standard_department_code: 'RAD',
      points: [
        { seq: 1, name: '影像学表现' },
        { seq: 2, name: '分期意见' },
      ],
      speech_text: '影像学上右肺上叶见3.2厘米肿块，纵隔淋巴结肿大。分期考虑T2aN2M0，IIIA期。',
    },
    response: {
      request_id: 'req-20261121-0001',
      is_complete: true,
      covered: [
        { seq: 1, name: '影像学表现' },
        { seq: 2, name: '分期意见' },
      ],
      missing: [],
      organized: {
        structured: [
          {
            seq: 1,
            point: '影像学表现',
            value: '右肺上叶3.2厘米肿块，纵隔淋巴结肿大',
            source_text: '影像学上右肺上叶见3.2厘米肿块，纵隔淋巴结肿大。',
            voices: [],
          },
          { seq: 2, point: '分期意见', value: 'T2aN2M0，IIIA期', source_text: '分期考虑T2aN2M0，IIIA期。', voices: [] },
        ],
        conclusion: '右肺上叶肿块伴纵隔淋巴结肿大，分期T2aN2M0（IIIA期）。',
      },
      processor_version: processorVersion,
      artifact_key: 'sp1_5d41402abc4b2a76b9719d911017c592',
      from_cache: false,
    },
  },
  reportAdviceDraft: {
    request: {
      request_id: 'req-20261121-0002',
      cancer_type: '肺癌',
      case_summary: { diagnosis: '右肺上叶腺癌 T2aN2M0 IIIA期', key_question: '是否适合新辅助治疗后手术' },
      dept_opinions: [
        {
          dept: '胸外科',
          content: '建议新辅助化疗免疫治疗后评估手术。',
          supplements: [{ doctor: '张医生', content: '需完善PET-CT排除远处转移。' }],
        },
        { dept: '肿瘤内科', content: '同意新辅助治疗，方案含铂双药联合免疫。', supplements: [] },
      ],
    },
    response: { request_id: 'req-20261121-0002', accepted: true },
  },
  caseFileProcess: {
    request: { request_id: 'req-20261121-0003', files: [fileRef] },
    response: {
      results: [
        {
          upload_file_id: 1001,
          desensitized_url: 'http://ai-gateway.hospital.local:8080/files/eyJrIjoi.c2lnbmF0dXJl',
          category: 'pathology_report' as const,
          pages: 1,
          redactions: 6,
          page_redactions: [{ name: 2, hospital_id: 3, phone: 1 }],
        },
      ],
    },
  },
  caseOcr: {
    request: { request_id: 'req-20261121-0004', files: [fileRef] },
    response: {
      request_id: 'req-20261121-0004',
      patient_info: { name: '张三', age: '56', cancer_type: '肺癌', stage: 'IIIA' },
      ocr_results: [{ upload_file_id: 1001, ocr_result: '病理诊断报告\n姓名：张三 年龄：56岁\n病理诊断：右肺上叶浸润性腺癌' }],
    },
  },
  asr: {
    request: { request_id: 'req-20261121-0005', voice_url: 'http://object-store.hospital.local/mdt-voice/1001.m4a' },
    response: {
      text: '影像学上右肺上叶见3.2厘米肿块。',
      segments: [{ start_ms: 0, end_ms: 2860, text: '影像学上右肺上叶见3.2厘米肿块。' }],
    },
  },
};
