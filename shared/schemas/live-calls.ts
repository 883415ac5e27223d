import * as z from 'zod';
import { MAX_COMMAND_TEXT_CHARS } from '../domain/live-call-access.ts';
import { MAX_REPLY_CHARS } from '../domain/text-messages.ts';
import { Timestamp } from './common.ts';
import { documentedInt, MAX_URL_CHARS } from './bounds.ts';

const Sentence = z.string().min(1).max(1000);

/** A command for a live call (`POST …/control`); the media service checks it again with this schema. */
export const LiveCommand = z
  .discriminatedUnion('type', [
    z
      .strictObject({
        type: z.literal('say'),
        text: Sentence.openapi({ description: 'What the agent says, after the answer it is giving.' }),
        end_call: z.boolean().optional().openapi({ description: 'Hang up once it is said (default false).' }),
      })
      .openapi('LiveSayCommand'),
    z
      .strictObject({
        type: z.literal('add_message'),
        content: z.string().min(1).max(MAX_COMMAND_TEXT_CHARS).openapi({
          description: "Added to the model's context as a system message: it guides the agent's next answers.",
        }),
        respond: z.boolean().optional().openapi({
          description: 'Have the agent answer now (after the answer it is giving), instead of at its next turn.',
        }),
      })
      .openapi('LiveAddMessageCommand'),
    z
      .strictObject({
        type: z.literal('end'),
        say: Sentence.optional().openapi({ description: 'A goodbye said first; without it the call ends at once.' }),
      })
      .openapi('LiveEndCommand'),
    z
      .strictObject({
        type: z.literal('transfer'),
        destination: z.string().min(1).max(40).openapi({
          description: "One of the agent's transfer destinations (`workflow_configurations.transfer`), by name.",
        }),
      })
      .openapi('LiveTransferCommand'),
    z
      .strictObject({
        type: z.literal('send_sms'),
        template: z.string().min(1).max(40).optional().openapi({
          description: "One of the agent's message templates (`workflow_configurations.sms.templates`), by name.",
        }),
        text: z.string().min(1).max(640).optional().openapi({
          description: "A text of your own (instead of a template); allowed whatever the agent's `allow_free_text`.",
        }),
      })
      .refine((command) => (command.template === undefined) !== (command.text === undefined), {
        message: 'give either template or text',
      })
      .openapi('LiveSendSmsCommand', {
        description:
          "Text the caller now (or the agent's `sms.destination`), under the same rules as the agent's texts: Do-not-call, calling hours, the per-call cap, the organization's rate. Refused with 409 and the reason.",
      }),
  ])
  .openapi('LiveCommand', {
    description:
      "Steer a live call or session: `say` a sentence, `add_message` to the agent's context, or `end` it (the run then ends as when the agent ends it: `completed`, `call.completed`).",
    example: { type: 'say', text: 'A colleague will call you back today.' },
  });
export type LiveCommand = z.infer<typeof LiveCommand>;

/**
 * The platform's own news for a live call, beside the API's commands on the media service's
 * `/control` (never a command of the API): a text from the caller, recorded on the run already
 * (shared/services/inbound-texts.ts), which the agent takes as a turn of the caller's.
 */
export const CallerTextCommand = z.strictObject({
  type: z.literal('caller_text'),
  sms_id: z.string().min(1).max(64),
  from: z.string().min(1).max(40),
  body: z.string().max(MAX_REPLY_CHARS),
});
export type CallerTextCommand = z.infer<typeof CallerTextCommand>;

/** What the media service's `/control` takes: a command of the API, or the platform's news of the call. */
export const MediaControlCommand = z.union([LiveCommand, CallerTextCommand]);
export type MediaControlCommand = z.infer<typeof MediaControlCommand>;

export const LiveCommandResponse = z
  .object({
    workflow_run_id: documentedInt(z.int()),
    type: z.enum(['say', 'add_message', 'end', 'transfer', 'send_sms']),
    status: z.literal('applied'),
  })
  .openapi('LiveCommandResponse');

export const ListenSession = z
  .object({
    url: z.string().max(MAX_URL_CHARS).openapi({
      description:
        'WebSocket URL (wss://) carrying the credential: connect within `expires_at`; the connection lasts until the call ends.',
      example: 'wss://media.example.com/listen?run_ref=1.42.1001&token=1764151200.abc…',
    }),
    expires_at: Timestamp,
    media_format: z
      .object({ encoding: z.literal('audio/x-mulaw'), sample_rate: z.literal(8000), channels: z.literal(1) })
      .openapi({ description: 'The `media` frames: each side separately (`track`), 20 ms a frame.' }),
  })
  .openapi('ListenSession', {
    description:
      'Listen to a live call: a WebSocket of JSON frames, `start`, then `media` `{track: "inbound"|"outbound", timestamp, payload}` (base64 mu-law; inbound is the caller, outbound the agent), `transcript`, `tool_call`, `knowledge` and `control` as they happen, and `end` when the call ends (then the socket closes, 1000).',
  });
