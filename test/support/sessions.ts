import { WebSocket } from 'ws';

/** A frame of a browser or chat session (docs/browser-sessions.md). */
export type SessionFrame = { event: string; [field: string]: any };

/**
 * Connects to a browser or chat session like the client library: the start frame with the
 * session's credential, marks echoed at once; every frame received is kept in order.
 */
export async function connectSession(session: { url: string; run_ref: string; token: string }) {
  const ws = new WebSocket(session.url);
  const frames: SessionFrame[] = [];
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data)) as SessionFrame;
    frames.push(frame);
    if (frame.event === 'mark') ws.send(JSON.stringify(frame));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.send(
    JSON.stringify({
      event: 'start',
      start: { customParameters: { run_ref: session.run_ref, stream_token: session.token } },
    }),
  );
  const of = (event: string) => frames.filter((frame) => frame.event === event);
  return { ws, frames, closed, of, send: (frame: SessionFrame) => ws.send(JSON.stringify(frame)) };
}
