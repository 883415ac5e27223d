/**
 * A contacts file picked for a campaign, as the CSV text the API takes (`source_config.csv_text`):
 * a CSV file as it is, an Excel workbook's first sheet read in the browser (read-excel-file) and
 * written as CSV (csv-stringify), so the API sees one format and its checks (phone column, invalid
 * rows in the report) apply to both.
 */
import { stringify } from 'csv-stringify/browser/esm/sync';
import { readSheet } from 'read-excel-file/browser';

const isWorkbook = (file: File) =>
  file.name.toLowerCase().endsWith('.xlsx') ||
  file.type === 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export async function contactsCsv(file: File): Promise<string> {
  if (!isWorkbook(file)) return file.text();
  const rows = await readSheet(file);
  return stringify(rows.map((row) => row.map((cell) => (cell instanceof Date ? cell.toISOString() : (cell ?? '')))));
}
