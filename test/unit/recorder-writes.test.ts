import * as fs from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { FLUSH_SECONDS, WINDOW_SECONDS, CallRecorder } from '../../media/src/audio/recorder.ts';
import { parseWavHeader } from '../../media/src/audio/wav.ts';

// The recorder's file writes, counted (the module under test imports writeSync from node:fs).
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return { ...actual, writeSync: vi.fn(actual.writeSync) };
});

describe('call recorder: disk writes', () => {
  it('writes the audio that leaves the window a second at a time, not once per 20 ms frame', async () => {
    const writes = vi.mocked(fs.writeSync);
    const recorder = new CallRecorder();
    const frame = Buffer.alloc(160, 0x55);
    writes.mockClear();
    for (let index = 0; index < 60 * 50; index++) {
      recorder.addInbound(frame, index * 20);
      recorder.addOutbound(frame, index * 20 + 3);
    }
    // 60 s of both directions: the window fills after WINDOW_SECONDS, then moves FLUSH_SECONDS a write.
    expect(writes.mock.calls.length).toBeLessThanOrEqual((60 - WINDOW_SECONDS) / FLUSH_SECONDS + 1);
    const file = recorder.finish();
    // Everything written all the same: up to the agent's last frame, at 59,983 ms.
    expect(parseWavHeader(await file.read()).dataBytes).toBe((59_983 * 8 + 160) * 2);
    await file.dispose();
  });
});
