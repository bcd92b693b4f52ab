/**
 * A small RFC 4180 CSV parser: comma separated, fields optionally in double quotes ("" inside
 * quotes is one quote; quoted fields may hold commas and line breaks), CRLF or LF line ends, a
 * UTF-8 byte-order mark ignored. Each record carries the 1-based line where it starts, so a
 * validation report can point a content author at the row to fix.
 */
export interface CsvRecord {
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
  }
}

export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let fields: string[] = [];
  let field = "";
  let recordLine = 1;
  let quoted = false;
  let fieldStarted = false;
  const endField = () => {
    fields.push(field);
    field = "";
    fieldStarted = false;
  };
  const endRecord = () => {
    endField();
    // skip blank lines
    if (!(fields.length === 1 && fields[0] === "")) records.push({ line: recordLine, fields });
    fields = [];
  };
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        const next = text[i];
        if (next !== undefined && next !== "," && next !== "\n" && next !== "\r") {
          throw new CsvError(`unexpected character '${next}' after a closing quote`, line);
        }
        continue;
      }
      if (ch === "\n") line++;
      field += ch;
      i++;
      continue;
    }
    if (ch === '"' && !fieldStarted && field === "") {
      quoted = true;
      fieldStarted = true;
      i++;
      continue;
    }
    if (ch === ",") {
      endField();
      i++;
      continue;
    }
    if (ch === "\r" || ch === "\n") {
      endRecord();
      i += ch === "\r" && text[i + 1] === "\n" ? 2 : 1;
      line++;
      recordLine = line;
      continue;
    }
    field += ch;
    fieldStarted = true;
    i++;
  }
  if (quoted) throw new CsvError("a quoted field is not closed", recordLine);
  if (field !== "" || fields.length) endRecord();
  return records;
}
