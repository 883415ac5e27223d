/**
 * How the local recognisers (the Deepgram fake, the Realtime fake's transcription) hear a live
 * stream of the synthetic speech of media/src/audio/tones.ts (one character a 20 ms frame) wherever
 * its chunks of audio begin, as a real recogniser hears words: a phone line's frames are on the
 * symbols' grid, a browser's microphone is not (its speech starts anywhere in a chunk), and a
 * starved browser repeats or drops a few milliseconds of it now and then.
 */
import { decodeMulaw } from '../../media/src/audio/mulaw.ts';
import { decodeSpeechFrame, decodeSpeechFrameOf, FRAME_SAMPLES, isVoiceActivity } from '../../media/src/audio/tones.ts';

/** A sample this loud after a pause is where sound begins. */
const ONSET_LEVEL = 300;

export interface HeardAudio {
  /**
   * A frame of audio (`samples` of it: a fragment cut short by a glitch is less) and the character
   * heard in it (null: silence, noise, or a sound not heard as one). False stops the reading (the
   * stream is gone).
   */
  frame(frame: Int16Array, char: string | null, samples: number): boolean | void;
  /** Less than a frame of a pause, skipped to where the sound begins: its time counts, its frame does not. */
  skipped(samples: number): void;
}

export class SpeechFrames {
  private pending = Buffer.alloc(0);
  private lastFrameSilent = true;
  /** The last symbol heard since the last pause (a glitch's repeat of it is not heard again). */
  private lastSymbol: string | null = null;

  constructor(private readonly heard: HeardAudio) {}

  /** Mu-law audio received: heard a frame at a time, as far as it goes. */
  append(mulaw: Buffer): void {
    this.pending = Buffer.concat([this.pending, mulaw]);
    this.read(false);
  }

  /** The stream's end: the audio received is heard to its last whole frame, with no more to look ahead into. */
  end(): void {
    this.read(true);
  }

  /** What was not heard yet is dropped. */
  clear(): void {
    this.pending = Buffer.alloc(0);
  }

  private read(all: boolean): void {
    for (;;) {
      // After a pause, the frames start again where the sound does.
      if (this.lastFrameSilent && this.pending.length >= FRAME_SAMPLES) {
        const next = decodeMulaw(this.pending.subarray(0, FRAME_SAMPLES));
        const skip = next.findIndex((sample) => Math.abs(sample) >= ONSET_LEVEL) - 1;
        if (skip > 0) {
          this.heard.skipped(skip);
          this.pending = this.pending.subarray(skip);
          if (this.pending.length < FRAME_SAMPLES) break;
        }
      }
      if (this.pending.length < FRAME_SAMPLES) break;
      const frame = decodeMulaw(this.pending.subarray(0, FRAME_SAMPLES));
      if (isVoiceActivity(frame) && wholeSymbol(frame) === null) {
        // Sound that is not one whole symbol: frames off the symbols' grid, after a glitch of the
        // caller's audio, or noise. As a recogniser hears through a glitch, the frames start again
        // where the next whole symbol does; what comes before it is heard only if it is most of
        // a symbol other than the one just heard (a symbol cut short), not a repeat of its end.
        if (!all && this.pending.length < 2 * FRAME_SAMPLES) break; // the next frame, to look for it in
        const resync = nextSymbolStart(this.pending);
        if (resync > 0) {
          const cut = resync >= FRAME_SAMPLES / 2 ? decodeSpeechFrame(frame) : null;
          this.pending = this.pending.subarray(resync);
          if (this.emit(frame, cut !== this.lastSymbol ? cut : null, resync) === false) return this.clear();
          continue;
        }
      }
      this.pending = this.pending.subarray(FRAME_SAMPLES);
      if (this.emit(frame, fillsFrame(frame) ? decodeSpeechFrame(frame) : null, FRAME_SAMPLES) === false)
        return this.clear();
    }
  }

  private emit(frame: Int16Array, char: string | null, samples: number): boolean | void {
    this.lastFrameSilent = !isVoiceActivity(frame);
    if (this.lastFrameSilent) this.lastSymbol = null;
    if (char !== null) this.lastSymbol = char;
    return this.heard.frame(frame, char, samples);
  }
}

/** A symbol's sound fills its frame: each quarter holds an eighth of the energy at least (not a word's last milliseconds, then silence). */
function fillsFrame(frame: Int16Array): boolean {
  const quarter = frame.length / 4;
  const energies = [0, 0, 0, 0];
  for (let i = 0; i < frame.length; i++) energies[Math.floor(i / quarter)]! += frame[i]! * frame[i]!;
  const total = energies.reduce((sum, energy) => sum + energy, 0);
  return energies.every((energy) => energy * 8 >= total);
}

/** Share of a frame's energy a whole symbol on the grid holds in its two tones (a few samples off it: about 0.95; a frame a fifth into the next symbol holds 0.64, or 0.82 when the two share a tone). */
const WHOLE_SYMBOL_PURITY = 0.9;

/** The symbol of a frame that is one whole symbol of the synthetic speech, on the symbols' grid. */
function wholeSymbol(frame: Int16Array): string | null {
  return fillsFrame(frame) ? decodeSpeechFrameOf(frame, WHOLE_SYMBOL_PURITY) : null;
}

/** Where in `mulaw` (within its first frame) the next whole symbol starts, or 0 for none: looked for 4 samples apart. */
function nextSymbolStart(mulaw: Buffer): number {
  for (let offset = 4; offset < FRAME_SAMPLES && offset + FRAME_SAMPLES <= mulaw.length; offset += 4)
    if (wholeSymbol(decodeMulaw(mulaw.subarray(offset, offset + FRAME_SAMPLES))) !== null) return offset;
  return 0;
}
