/**
 * A regular expression matching the decimal integers (no sign, no leading zeros) that are at least
 * `minimum`: how a web ACL, which can only match text, compares a header such as Content-Length
 * with a number. Longer numbers are larger; a number of the same length is larger when, at the
 * first digit where it differs, its digit is greater.
 */
export function decimalAtLeastPattern(minimum: number): string {
  if (!Number.isSafeInteger(minimum) || minimum < 1) throw new RangeError(`Not a positive integer: ${minimum}`);
  const digits = String(minimum);
  const alternatives = [`[1-9]\\d{${digits.length},}`, digits];
  for (let index = 0; index < digits.length; index += 1) {
    const digit = Number(digits[index]);
    if (digit < 9) alternatives.push(`${digits.slice(0, index)}[${digit + 1}-9]\\d{${digits.length - index - 1}}`);
  }
  return `^(?:${alternatives.join('|')})$`;
}
