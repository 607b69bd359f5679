/** The substrings of a line that spans cover: tests compare them exactly, so over- and under-redaction both fail. */
export function slices(line: string, spans: ReadonlyArray<{ start: number; end: number }>): string[] {
  return spans.map((span) => line.slice(span.start, span.end));
}

/** Clinical lines in which no detector may find anything. */
export const CLINICAL_LINES = [
  '白细胞计数 3.86 10^9/L 3.5-9.5',
  '病理分期：IIIA期 (T2N2M0)',
  '临床诊断：右肺上叶腺癌',
  '报告日期：2016-08-24',
  '年龄：56岁',
  '性别：男',
  '血小板计数 171 125-350',
];
