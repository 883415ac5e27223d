import * as z from 'zod';
import './common.ts';
import { MAX_CHAT_MESSAGE_CHARS } from '../domain/browser-sessions.ts';
import { MAX_STORED_CHARS } from './bounds.ts';

/** The media service's WebSocket refuses frames over 16 KiB (its `maxPayload`), so no string in one is longer. */
const MAX_FRAME_CHARS = 16 * 1024;

/**
 * The frames of a browser or chat session's WebSocket (SessionAccess): JSON text frames, Twilio
 * Media Streams' shape for audio. In the OpenAPI document as components, so the generated client
 * types them; the media service reads them with the same leniency as a provider's frames.
 */
const Start = z
  .object({
    event: z.literal('start'),
    start: z.object({
      customParameters: z.object({
        run_ref: z.string().max(MAX_FRAME_CHARS),
        stream_token: z.string().max(MAX_FRAME_CHARS),
      }),
    }),
  })
  .openapi({ description: 'First frame: the credential of the conversation (`session.run_ref`, `session.token`).' });
const Media = z
  .object({
    event: z.literal('media'),
    media: z.object({
      payload: z
        .string()
        .max(MAX_FRAME_CHARS)
        .openapi({ description: '20 ms of 8 kHz mu-law audio (160 bytes), base64.' }),
      timestamp: z
        .string()
        .max(MAX_FRAME_CHARS)
        .optional()
        .openapi({ description: 'Milliseconds since the session started.' }),
    }),
  })
  .openapi({ description: 'Voice: audio (the microphone from the client, the agent from the service).' });
const Mark = z.object({ event: z.literal('mark'), mark: z.object({ name: z.string().max(MAX_FRAME_CHARS) }) }).openapi({
  description:
    'From the service, after each answer; the client echoes it once the audio before it has played (a chat: at once).',
});
const Message = z
  .object({ event: z.literal('message'), text: z.string().min(1).max(MAX_CHAT_MESSAGE_CHARS) })
  .openapi({ description: 'Chat: a message of the user; it stops an answer still being written.' });
const Offer = z.object({ event: z.literal('offer'), sdp: z.string().max(MAX_FRAME_CHARS) }).openapi({
  description:
    '`smallwebrtc`: the browser’s SDP offer, with its ICE candidates (no trickle); audio then goes over WebRTC (Opus), not the WebSocket.',
});
const Stop = z
  .object({ event: z.literal('stop') })
  .openapi({ description: 'The client ends the conversation (the run completes, as when a caller hangs up).' });

export const SessionClientFrame = z
  .discriminatedUnion('event', [Start, Media, Mark, Message, Offer, Stop])
  .openapi('SessionClientFrame', {
    description: 'A frame the client sends on the session WebSocket.',
    examples: [
      { event: 'start', start: { customParameters: { run_ref: '12.34.5678', stream_token: '1795600000.3q2-7wxK…' } } },
      { event: 'message', text: 'What are your opening hours?' },
      { event: 'stop' },
    ],
  });

export const SessionEvent = z
  .discriminatedUnion('event', [
    Media,
    Mark,
    z.object({ event: z.literal('clear') }).openapi({
      description: 'Voice: the user interrupted; drop the agent audio not yet played.',
    }),
    z.object({ event: z.literal('text'), text: z.string().max(MAX_STORED_CHARS) }).openapi({
      description: 'Chat: the next sentence of the answer, as soon as the model has written it.',
    }),
    z
      .object({
        event: z.literal('transcript'),
        role: z.enum(['user', 'assistant']),
        text: z.string().max(MAX_STORED_CHARS),
        timestamp: z.string().max(MAX_STORED_CHARS),
        end: z.string().max(MAX_STORED_CHARS),
      })
      .openapi({ description: 'A transcript line, once final (the agent’s: what was played or sent).' }),
    z
      .object({
        event: z.literal('tool_call'),
        name: z.string().max(MAX_STORED_CHARS),
        arguments: z.string().max(MAX_STORED_CHARS),
        result: z.string().max(MAX_STORED_CHARS),
      })
      .openapi({
        description:
          'The agent called a tool: an HTTP tool, `set_call_disposition`, `save_information`, `end_call` (the conversation ends after the answer), `send_digits`.',
      }),
    z
      .object({
        event: z.literal('knowledge'),
        passages: z
          .array(z.object({ title: z.string().max(MAX_STORED_CHARS), text: z.string().max(MAX_STORED_CHARS) }))
          .max(20),
      })
      .openapi({ description: 'Knowledge-base passages the agent was given for the user’s last turn.' }),
    z
      .object({
        event: z.literal('flow_step'),
        node_id: z.string().max(48),
        name: z.string().max(100),
        from: z.string().max(48).nullable(),
        reason: z.string().max(MAX_STORED_CHARS).nullable(),
      })
      .openapi({
        description:
          'A conversation flow entered a step (docs/flows.md): its node, the node it came from and why (null for the start). Also sent to the listeners of a live call.',
      }),
    z.object({ event: z.literal('answer'), sdp: z.string().max(MAX_STORED_CHARS) }).openapi({
      description: '`smallwebrtc`: the media service’s SDP answer, with its ICE candidates.',
    }),
    z
      .object({ event: z.literal('error'), detail: z.string().max(MAX_STORED_CHARS) })
      .openapi({ description: 'A frame was refused (e.g. an empty or too long message); the session goes on.' }),
  ])
  .openapi('SessionEvent', {
    description: 'A frame the service sends on the session WebSocket.',
    examples: [
      { event: 'text', text: 'We are open Monday to Friday, 8:00 to 16:00.' },
      {
        event: 'transcript',
        role: 'user',
        text: 'What are your opening hours?',
        timestamp: '2026-11-25T10:00:03.120Z',
        end: '2026-11-25T10:00:04.480Z',
      },
      { event: 'tool_call', name: 'set_call_disposition', arguments: '{"code":"answered"}', result: '{"ok":true}' },
      { event: 'knowledge', passages: [{ title: 'Hours', text: 'Opening hours: Monday to Friday, 8:00 to 16:00.' }] },
    ],
  });
