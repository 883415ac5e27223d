import { DecompressionBudget } from './decompression-budget.ts';

/**
 * Measures what a PDF's streams decode to before pdf.js reads it. pdf.js (inside unpdf) inflates a
 * stream whole when a page's text is read, growing one buffer (or gathering a DecompressionStream's
 * chunks) with no cap, so a 1 MB upload whose content stream inflates to 1 GiB is held in memory
 * whole. pdf.js offers no hook to cap it, so every stream is first decoded here through the
 * request's `DecompressionBudget`, with the filters pdf.js would apply (FlateDecode, LZWDecode,
 * RunLengthDecode, ASCIIHexDecode, ASCII85Decode, chained): a file whose streams together decode
 * past the budget is refused before pdf.js sees it.
 *
 * To stay on the safe side of pdf.js's own, more forgiving parser: every `stream` keyword in the
 * file is measured (objects are not located through the cross-reference table, which pdf.js may
 * rebuild), each stream's data is read from its start to wherever its filter says it ends (not to
 * a `/Length` the file could misstate), and what cannot be measured is refused: an encrypted file
 * (its streams are ciphertext here), a filter given by reference, or a predictor in the middle of a
 * chain. A zlib stream is measured whatever its dictionary seems to say. Image-only filters (DCT,
 * JPX, JBIG2, CCITT) end a chain: text extraction does not decode images.
 */
export class UnmeasurablePdfError extends Error {}

const AMPLIFYING_FILTERS: Record<string, string> = {
  FlateDecode: 'flate',
  Fl: 'flate',
  LZWDecode: 'lzw',
  LZW: 'lzw',
  RunLengthDecode: 'runLength',
  RL: 'runLength',
  ASCIIHexDecode: 'asciiHex',
  AHx: 'asciiHex',
  ASCII85Decode: 'ascii85',
  A85: 'ascii85',
};
const IMAGE_FILTERS = new Set(['DCTDecode', 'DCT', 'JPXDecode', 'JBIG2Decode', 'CCITTFaxDecode', 'CCF']);

/** A PDF name with its `#xx` escapes decoded, as pdf.js reads it. */
const unescapeName = (name: string) =>
  name.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

const NAME = /\/([^\s/[\]<>(){}%]*)/g;

/** The dictionary text right before a `stream` keyword at `keyword`, or undefined when there is none. */
function dictionaryBefore(text: string, keyword: number): string | undefined {
  let end = keyword;
  while (end > 0 && /\s/.test(text[end - 1]!)) end -= 1;
  if (text.slice(end - 2, end) !== '>>') return undefined;
  let depth = 0;
  for (let index = end - 1; index >= 1; index -= 1) {
    const pair = text.slice(index - 1, index + 1);
    if (pair === '>>') {
      depth += 1;
      index -= 1;
    } else if (pair === '<<') {
      depth -= 1;
      if (depth === 0) return text.slice(index - 1, end);
      index -= 1;
    }
  }
  return undefined;
}

/**
 * The filter chains a stream dictionary names, outer filter first. Every `/Filter` in the
 * dictionary's text counts (one hidden in a string or a nested dictionary is measured too, rather
 * than guessing which one pdf.js reads).
 */
function filterChainsOf(dictionary: string): string[][] {
  const chains: string[][] = [];
  for (const match of unescapeName(dictionary).matchAll(
    /\/Filter\b\s*(\[[^\]]*\]|\/[^\s/[\]<>(){}%]*|\d+\s+\d+\s+R)/g,
  )) {
    const value = match[1]!;
    if (/\bR\b/.test(value)) throw new UnmeasurablePdfError('a stream filter is given by reference');
    chains.push([...value.matchAll(NAME)].map((name) => name[1]!));
  }
  return chains;
}

function runLength(data: Uint8Array, budget: DecompressionBudget): Buffer {
  const parts: Buffer[] = [];
  for (let index = 0; index < data.length;) {
    const length = data[index++]!;
    if (length === 128) break;
    if (length < 128) {
      const literal = Buffer.from(data.subarray(index, index + length + 1));
      budget.spend(literal.length);
      parts.push(literal);
      index += length + 1;
    } else {
      budget.spend(257 - length);
      parts.push(Buffer.alloc(257 - length, data[index++] ?? 0));
    }
  }
  return Buffer.concat(parts);
}

function asciiHex(data: Uint8Array, budget: DecompressionBudget): Buffer {
  const text = Buffer.from(data).toString('latin1');
  const end = text.indexOf('>');
  const digits = (end === -1 ? text : text.slice(0, end)).replace(/[^0-9a-fA-F]/g, '');
  const output = Buffer.from(digits.length % 2 ? `${digits}0` : digits, 'hex');
  budget.spend(output.length);
  return output;
}

function ascii85(data: Uint8Array, budget: DecompressionBudget): Buffer {
  const text = Buffer.from(data).toString('latin1');
  const end = text.indexOf('~');
  const body = (end === -1 ? text : text.slice(0, end)).replace(/\s/g, '');
  const bytes: number[] = [];
  let group: number[] = [];
  for (const character of body) {
    if (character === 'z' && group.length === 0) {
      budget.spend(4);
      bytes.push(0, 0, 0, 0);
      continue;
    }
    const digit = character.charCodeAt(0) - 33;
    if (digit < 0 || digit > 84) continue;
    group.push(digit);
    if (group.length === 5) {
      const value = group.reduce((sum, next) => sum * 85 + next, 0);
      budget.spend(4);
      bytes.push((value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255);
      group = [];
    }
  }
  return Buffer.from(bytes);
}

/**
 * LZW as PDF uses it (9 to 12-bit codes, 256 clears, 257 ends, early change 1). A table entry is a
 * slice of the output already written: the previous string followed by the first byte of this one.
 */
function lzw(data: Uint8Array, budget: DecompressionBudget): Buffer {
  let output = Buffer.alloc(Math.min(budget.remaining, 65_536));
  let written = 0;
  const starts = new Int32Array(4096);
  const lengths = new Int32Array(4096);
  let next = 258;
  let codeLength = 9;
  let previousStart = 0;
  let previousLength = 0;
  let bitBuffer = 0;
  let bitCount = 0;
  for (let index = 0; index < data.length;) {
    while (bitCount < codeLength && index < data.length) {
      bitBuffer = ((bitBuffer << 8) | data[index++]!) & 0xffffff;
      bitCount += 8;
    }
    if (bitCount < codeLength) break;
    const code = (bitBuffer >>> (bitCount - codeLength)) & ((1 << codeLength) - 1);
    bitCount -= codeLength;
    if (code === 256) {
      [next, codeLength, previousLength] = [258, 9, 0];
      continue;
    }
    if (code === 257) break;
    let length: number;
    if (code < 256) length = 1;
    else if (code < next) length = lengths[code]!;
    else if (code === next && previousLength > 0) length = previousLength + 1;
    else break; // a code not yet defined: the data ends here
    budget.spend(length);
    if (written + length > output.length) {
      const grown = Buffer.alloc(Math.max(output.length * 2, written + length));
      output.copy(grown, 0, 0, written);
      output = grown;
    }
    if (code < 256) output[written] = code;
    else if (code < next) output.copy(output, written, starts[code]!, starts[code]! + length);
    else {
      output.copy(output, written, previousStart, previousStart + previousLength);
      output[written + length - 1] = output[written]!;
    }
    if (previousLength > 0 && next < 4096) {
      starts[next] = previousStart;
      lengths[next] = previousLength + 1;
      next += 1;
    }
    [previousStart, previousLength] = [written, length];
    written += length;
    if (next + 1 >= 1 << codeLength && codeLength < 12) codeLength += 1;
  }
  return output.subarray(0, written);
}

async function decode(
  data: Uint8Array,
  filter: string,
  budget: DecompressionBudget,
  keep: boolean,
): Promise<Uint8Array> {
  switch (AMPLIFYING_FILTERS[filter]) {
    case 'flate':
      return budget.inflate(data, keep);
    case 'lzw':
      return lzw(data, budget);
    case 'runLength':
      return runLength(data, budget);
    case 'asciiHex':
      return asciiHex(data, budget);
    case 'ascii85':
      return ascii85(data, budget);
    default:
      return data; // pdf.js passes a stream through an unknown filter unchanged
  }
}

const STREAM_KEYWORD = /(?<![A-Za-z])stream[^\r\n]*(?:\r\n|\n|\r)/g;

/** Bytes the PDF's streams decode to in all; throws `DecompressionLimitError` past the budget. */
export async function decodedPdfSize(pdf: Buffer, budget: DecompressionBudget): Promise<number> {
  const text = pdf.toString('latin1');
  if (/\/Encrypt\b/.test(unescapeName(text)))
    throw new UnmeasurablePdfError('the PDF is encrypted; save it without a password or restrictions');
  for (const keyword of text.matchAll(STREAM_KEYWORD)) {
    budget.checkDeadline();
    const dictionary = dictionaryBefore(text, keyword.index) ?? '';
    const start = keyword.index + keyword[0].length;
    const chains = filterChainsOf(dictionary);
    // A zlib stream is measured even when no chain names Flate first: a dictionary this reading
    // got wrong (a string holding "<<", say) must not hide one. Data that is not zlib stops at once.
    if (!chains.some(([first]) => AMPLIFYING_FILTERS[first ?? ''] === 'flate')) chains.push(['FlateDecode']);
    for (const filters of chains) {
      const amplifying = filters.filter((filter) => AMPLIFYING_FILTERS[filter]);
      if (amplifying.length > 1 && /\/(?:DecodeParms|DP)\b/.test(unescapeName(dictionary)))
        throw new UnmeasurablePdfError('a stream chains filters with decoding parameters');
      let data: Uint8Array = pdf.subarray(start);
      for (const [position, filter] of filters.entries()) {
        if (IMAGE_FILTERS.has(filter)) break;
        data = await decode(data, filter, budget, position < filters.length - 1);
      }
    }
  }
  return budget.producedBytes;
}
