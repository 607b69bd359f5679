/** The substrings of a line that spans cover: tests compare them exactly, so over- and under-redaction both fail. */
export function slices(line: string, spans: ReadonlyArray<{ start: number; end: number }>): string[] {
  return spans.map((span) => line.slice(span.start, span.end));
}
