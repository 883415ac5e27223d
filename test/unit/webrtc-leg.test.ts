import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeMulaw } from '../../media/src/audio/mulaw.ts';
import { WebRtcLeg } from '../../media/src/streams/webrtc-leg.ts';

const legs: WebRtcLeg[] = [];
afterEach(() => {
  for (const leg of legs.splice(0)) leg.close();
});

const media = () => ({
  event: 'media',
  media: { payload: encodeMulaw(new Int16Array(160).fill(800)).toString('base64') },
});
const mark = (name: string) => ({ event: 'mark', mark: { name } });

describe('the WebRTC leg of a smallwebrtc session', () => {
  it('plays the agent at one 20 ms frame per 20 ms, echoes a mark once the audio before it went out, and clear drops the rest (its marks echoed at once)', async () => {
    const delivered: { frame: Record<string, unknown>; at: number }[] = [];
    const start = performance.now();
    const leg = new WebRtcLeg(
      { hostAddresses: ['127.0.0.1'] },
      (frame) => delivered.push({ frame, at: performance.now() - start }),
      () => {},
    );
    legs.push(leg);
    for (let i = 0; i < 5; i++) leg.send(media());
    leg.send(mark('first'));
    for (let i = 0; i < 100; i++) leg.send(media());
    leg.send(mark('second'));

    await vi.waitFor(() => expect(delivered.map(({ frame }) => frame)).toEqual([mark('first')]), { timeout: 2000 });
    // Five frames of 20 ms went out before it: not sooner than 80 ms (the first leaves at once, or at the first tick).
    expect(delivered[0]!.at).toBeGreaterThanOrEqual(80);
    leg.send({ event: 'clear' });
    expect(delivered.map(({ frame }) => frame)).toEqual([mark('first'), mark('second')]);
    // Nothing is left to send.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(delivered).toHaveLength(2);
  });

  it('answers an SDP offer with its own candidates on the host addresses it is given only', async () => {
    const leg = new WebRtcLeg(
      { hostAddresses: ['127.0.0.1'] },
      () => {},
      () => {},
    );
    legs.push(leg);
    const offer = new WebRtcLeg(
      { hostAddresses: ['127.0.0.1'] },
      () => {},
      () => {},
    );
    legs.push(offer);
    // A second werift peer makes a real offer (Opus, DTLS fingerprint, loopback candidates).
    const pc = (
      offer as unknown as {
        pc: {
          createOffer: () => Promise<{ sdp: string; type: 'offer' }>;
          setLocalDescription: (d: unknown) => Promise<unknown>;
          localDescription: { sdp: string };
        };
      }
    ).pc;
    await pc.setLocalDescription(await pc.createOffer());
    const answer = await leg.answer(pc.localDescription.sdp);
    expect(answer).toMatch(/a=rtpmap:\d+ opus\/48000\/2/);
    expect(answer).toMatch(/a=fingerprint:sha-256 /);
    const candidates = [...answer.matchAll(/a=candidate:\S+ \d+ \w+ \d+ (\S+) \d+ typ (\w+)/g)];
    expect(candidates.length).toBeGreaterThan(0);
    expect(new Set(candidates.map(([, address]) => address))).toEqual(new Set(['127.0.0.1']));
  });
});
