/**
 * DTMF (ITU-T Q.23/Q.24) in the audio itself: the keys an agent sends to a phone menu, as tones
 * in its outbound 8 kHz stream, and a detector (Goertzel at the eight key frequencies) for the
 * local callee that plays a phone menu. In-band tones go through any G.711 call unchanged, the
 * same way on every provider. Only erasable TypeScript syntax (the container strips types).
 */
import { goertzelPower } from './tones.ts';

const SAMPLE_RATE = 8000;
const ROWS = [697, 770, 852, 941] as const;
const COLUMNS = [1209, 1336, 1477, 1633] as const;
const KEYPAD = ['123A', '456B', '789C', '*0#D'] as const;
/** Each key: 100 ms of tone, then 100 ms of silence (Q.24 asks for at least 40 ms each). */
export const KEY_TONE_MS = 100;
export const KEY_GAP_MS = 100;
/** `,` in a key sequence: a pause, as phone dialers write it (waiting for the next menu). */
export const PAUSE_MS = 500;
const AMPLITUDE = 6000;

/** The keys a sequence may hold: digits, `*`, `#`, `A`-`D`, and `,` for a pause. */
export const KEY_SEQUENCE = /^[0-9*#A-D,]{1,32}$/;

function frequenciesOf(key: string): [number, number] | undefined {
  for (const [row, keys] of KEYPAD.entries()) {
    const column = keys.indexOf(key);
    if (column >= 0) return [ROWS[row]!, COLUMNS[column]!];
  }
  return undefined;
}

/** 8 kHz PCM of `keys` pressed one after the other (a `,` waits PAUSE_MS). */
export function keyTones(keys: string): Int16Array {
  const samples: number[] = [];
  const ms = (duration: number) => (duration * SAMPLE_RATE) / 1000;
  for (const key of keys) {
    const pair = frequenciesOf(key);
    if (!pair) {
      for (let i = 0; i < ms(PAUSE_MS); i++) samples.push(0);
      continue;
    }
    for (let i = 0; i < ms(KEY_TONE_MS); i++)
      samples.push(
        Math.round(
          AMPLITUDE *
            (Math.sin((2 * Math.PI * pair[0] * i) / SAMPLE_RATE) + Math.sin((2 * Math.PI * pair[1] * i) / SAMPLE_RATE)),
        ),
      );
    for (let i = 0; i < ms(KEY_GAP_MS); i++) samples.push(0);
  }
  return Int16Array.from(samples);
}

/** Power of `frequency` (Hz) in `frame`; it need not fall on a bin. */
const power = (frame: Int16Array, frequency: number): number => goertzelPower(frame, frequency / SAMPLE_RATE);

/**
 * The key a frame (20 ms or more of 8 kHz PCM) carries, or null: one row and one column tone
 * must each stand well above the others of their group and hold most of the frame's energy
 * (speech and the synthetic voice of media/src/audio/tones.ts do not).
 */
export function detectKey(frame: Int16Array): string | null {
  let energy = 0;
  for (let i = 0; i < frame.length; i++) energy += frame[i]! * frame[i]!;
  if (energy === 0) return null;
  const strongest = (frequencies: readonly number[]) => {
    const powers = frequencies.map((frequency) => power(frame, frequency));
    const best = powers.indexOf(Math.max(...powers));
    const others = Math.max(0, ...powers.filter((_, index) => index !== best));
    // On the key's frequency, not beside it: stronger there than 3.5 % off (Q.23's reject band).
    const frequency = frequencies[best]!;
    const centred = powers[best]! > power(frame, frequency * 1.035) && powers[best]! > power(frame, frequency * 0.965);
    return { index: best, power: powers[best]!, clear: powers[best]! > 8 * others && centred };
  };
  const row = strongest(ROWS);
  const column = strongest(COLUMNS);
  // A pure tone of amplitude A holds (A * N / 2)^2 of Goertzel power and A^2 * N / 2 of energy.
  const share = (row.power + column.power) / ((frame.length / 2) * energy);
  if (!row.clear || !column.clear || share < 0.6) return null;
  return KEYPAD[row.index]![column.index]!;
}

/**
 * Keys in a stream of 20 ms frames: a key counts once it lasts two frames (40 ms, the shortest
 * tone Q.24 requires), once per press. Speech changes tone faster, so it does not count.
 */
export class KeyDetector {
  private candidate: string | null = null;
  private frames = 0;

  /** The key this frame completes, if any. */
  push(frame: Int16Array): string | null {
    const key = detectKey(frame);
    if (key !== this.candidate) {
      this.candidate = key;
      this.frames = 0;
    }
    if (key === null) return null;
    this.frames += 1;
    return this.frames === 2 ? key : null;
  }
}
