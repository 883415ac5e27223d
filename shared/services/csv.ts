/**
 * The CSV the product writes: RFC 4180 through csv-stringify (loaded with the first CSV, not with
 * the function), dates as ISO 8601, and safe to open in a spreadsheet: a cell that begins with
 * `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'` (OWASP's rule against CSV
 * injection, csv-stringify's `escape_formulas`), so a contact named `=HYPERLINK(…)` is text, not
 * a formula. Phone numbers (`+48…`) get it too: a spreadsheet then shows them as entered instead
 * of as a number. The JSON endpoints keep every value as entered. Booleans are `true`/`false`
 * (csv-stringify writes `1` and an empty cell, which reads as missing); objects are JSON.
 */
export async function writeCsv(
  rows: readonly Record<string, unknown>[],
  columns: readonly string[],
  options: { header: boolean },
): Promise<string> {
  const { stringify } = await import('csv-stringify/sync');
  return stringify([...rows], {
    header: options.header,
    columns: [...columns],
    escape_formulas: true,
    cast: { date: (value) => value.toISOString(), boolean: (value) => String(value) },
  });
}
