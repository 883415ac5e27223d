import * as z from 'zod';
import './common.ts';
import { CallAnalysisPlan } from './call-analysis.ts';
import { TransferPlan } from './call-transfer.ts';
import { SmsPlan } from './text-messages.ts';
import { documentedInt } from './bounds.ts';

/**
 * The voice settings of an agent: keys of its `workflow_configurations` object (other keys are
 * kept as they are). Every key is optional; the call loop applies VOICE_DEFAULTS where one is
 * absent (media/src/agent/call-plan.ts).
 */
export const VOICE_DEFAULTS = {
  language: 'en',
  temperature: 0.4,
  max_call_seconds: 600,
  silence_timeout_seconds: 8,
  barge_in_min_words: 1,
  chat_idle_timeout_seconds: 300,
} as const;

/** How an agent hears and speaks: speech-to-text, model and text-to-speech, or one speech-to-speech model. */
export const VOICE_ENGINES = ['cascade', 'realtime'] as const;
export type VoiceEngine = (typeof VOICE_ENGINES)[number];

const Phrase = z.string().min(1).max(500);

export const WorkflowConfigurations = z
  .looseObject({
    language: z
      .string()
      .min(2)
      .max(16)
      .optional()
      .openapi({
        description: `BCP 47 language of the call (speech-to-text, text-to-speech, model). Default \`${VOICE_DEFAULTS.language}\`.`,
      }),
    voice: z.string().min(1).max(100).optional().openapi({
      description:
        "Text-to-speech voice id of the provider (ElevenLabs voice id, or an OpenAI voice name). Default: the platform's `TTS_VOICE`.",
    }),
    model: z.string().min(1).max(100).optional().openapi({
      description:
        "Chat model name at the OpenAI-compatible API. Default: the platform's `LLM_MODEL` (or the organization key's model).",
    }),
    temperature: z
      .number()
      .min(0)
      .max(2)
      .optional()
      .openapi({ description: `Sampling temperature of the model. Default ${VOICE_DEFAULTS.temperature}.` }),
    first_message: z.string().min(1).max(1000).optional().openapi({
      description:
        'Spoken as soon as the call is answered, before the caller says anything; `{{initial_context.<key>}}` is filled in. Default: `workflow_definition.greeting`, else the model opens the call.',
    }),
    max_call_seconds: documentedInt(z.int().min(10).max(3600))
      .optional()
      .openapi({
        description: `Longest call; the agent then says goodbye and hangs up. Default ${VOICE_DEFAULTS.max_call_seconds}.`,
      }),
    silence_timeout_seconds: z
      .number()
      .min(2)
      .max(120)
      .optional()
      .openapi({
        description: `Caller silence after which the agent asks whether they are still there; after a second such silence it says goodbye and hangs up. Default ${VOICE_DEFAULTS.silence_timeout_seconds}.`,
      }),
    chat_idle_timeout_seconds: documentedInt(z.int().min(10).max(3600))
      .optional()
      .openapi({
        description: `Chat sessions only: a chat with no message from the user for this long ends (the agent says goodbye). Default ${VOICE_DEFAULTS.chat_idle_timeout_seconds}.`,
      }),
    engine: z.enum(VOICE_ENGINES).optional().openapi({
      description:
        "How the agent hears and speaks. `cascade` (default): speech-to-text (Deepgram), the model, text-to-speech. `realtime`: a speech-to-speech model (OpenAI's Realtime API, the platform's `REALTIME_MODEL`) that hears the caller and answers in its own voice (`voice` one of its voices: alloy, ash, ballad, coral, echo, sage, shimmer, verse, marin, cedar), G.711 mu-law end to end; the same instructions, tools, phrases, clocks, barge-in, transcript and recording. An agent with a conversation flow, and a chat, use the cascade.",
    }),
    barge_in_min_words: documentedInt(z.int().min(1).max(10))
      .optional()
      .openapi({
        description: `Words the caller must say while the agent talks before it stops to listen. A sound without words (noise, a cough, an echo) never interrupts. Default ${VOICE_DEFAULTS.barge_in_min_words}.`,
      }),
    turn_taking: z
      .strictObject({
        end_of_turn: z.enum(['pause', 'flux']).optional().openapi({
          description:
            'What ends the caller\'s turn. `pause` (default): a pause of 300 ms (Deepgram nova-3\'s endpointing). `flux`: Deepgram Flux\'s turn detection, which reads the words as well as the pause (`EndOfTurn`), so a pause after "My number is…" does not end the turn and "Yes." does not wait.',
        }),
        eager_end_of_turn: z.boolean().optional().openapi({
          description:
            "With `end_of_turn: flux`, an agent without a flow starts its answer at Flux's `EagerEndOfTurn` and speaks it at `EndOfTurn`; if the caller goes on (`TurnResumed`), the answer is thrown away. Saves the model's time on each turn at the cost of some unused model requests. Default false.",
        }),
        backchannels: z
          .array(z.string().min(1).max(40))
          .max(100)
          .optional()
          .openapi({
            description:
              'Words that, said alone while the agent talks ("mhm", "yeah", "ok", "right"), do not stop it; they go into the transcript and the agent goes on. Replaces the list of the call\'s language (en, pl, de, fr, it, es; others get English). `[]`: every word stops the agent.',
            example: ['mhm', 'yeah', 'ok', 'right', 'i see'],
          }),
        interruptible: z.boolean().optional().openapi({
          description:
            "`false`: the caller's words never cut the agent (a disclosure, a legal text): what it says is finished first, and the caller's words are then taken as the next turn. A flow step's own `interruptible` applies within the step. Default true.",
        }),
      })
      .optional()
      .openapi({
        description: "Turn-taking: what ends the caller's turn, and what of their speech stops the agent talking.",
        example: { end_of_turn: 'flux', backchannels: ['mhm', 'yeah', 'ok'] },
      }),
    keypad: z
      .strictObject({
        collect_digits: documentedInt(z.int().min(1).max(32)).optional().openapi({
          description: 'The entry ends once this many keys are pressed (an account number of fixed length).',
        }),
        end_key: z.enum(['#', '*']).nullable().optional().openapi({
          description: 'The key that ends an entry (not part of it). Default `#`; `null`: none.',
        }),
        timeout_seconds: z.number().min(1).max(10).optional().openapi({
          description: 'An entry also ends this long after the last key pressed. Default 2.',
        }),
        send_digits: z.boolean().optional().openapi({
          description:
            'Offers the model the `send_digits` tool, to press keys itself (a phone menu): in-band DTMF tones in its audio. Default false.',
        }),
      })
      .optional()
      .openapi({
        description:
          "How keys the caller presses (DTMF) reach the agent: an entry (`1234`) becomes the caller's turn, `[pressed 1234]` in the transcript. A key press also stops the agent talking.",
        example: { collect_digits: 8, end_key: '#' },
      }),
    analysis: CallAnalysisPlan.optional(),
    publish_requires_passing_tests: z.boolean().optional().openapi({
      description:
        'Publishing a version (`POST /agents/{agent_id}/definitions/{definition_id}/publish`) requires its latest completed test run (`POST /agents/{agent_id}/test-runs` with its `definition_id`) to have passed every case; otherwise 409 naming the failing cases. Default `false`.',
    }),
    call_due_tasks: z.boolean().optional().openapi({
      description:
        "A task of the agent's (a memory with `due_at` and a `contact`) that comes due calls its contact, once, as a call through the agent's API trigger would be placed: Do-not-call, calling hours (outside them the call waits for the window) and the organization's channels (when all are busy it tries again) apply; the run's `initial_context` carries `task_id` and `task` (its content). `task.due` is sent either way. Default `false`: tasks only send `task.due`.",
    }),
    transfer: TransferPlan.optional(),
    sms: SmsPlan.optional(),
    phrases: z
      .strictObject({
        silence_prompt: Phrase.optional(),
        silence_goodbye: Phrase.optional(),
        idle_goodbye: Phrase.optional(),
        time_limit_goodbye: Phrase.optional(),
        one_moment: Phrase.optional(),
        apology: Phrase.optional(),
        transferring: Phrase.optional(),
        transfer_failed: Phrase.optional(),
      })
      .optional()
      .openapi({
        description:
          "What the agent says without the model; each defaults to the call's language (en, pl, de, fr, it, es; others get English): `silence_prompt` (after a silence; `workflow_definition.silence_prompt` also sets it), `silence_goodbye` (after a second silence), `idle_goodbye` (a chat idle for `chat_idle_timeout_seconds`), `time_limit_goodbye` (at `max_call_seconds`), `one_moment` (when the model has not answered within 2 s), `apology` (before hanging up when a provider fails), `transferring` (before a transfer), `transfer_failed` (to the caller when the transfer's destination does not take the call). `{{initial_context.<key>}}` is filled in.",
        example: { one_moment: 'Let me check that for you.' },
      }),
  })
  .openapi('WorkflowConfigurations', { description: "The agent's voice settings; other keys are kept unchanged." });
export type WorkflowConfigurations = z.infer<typeof WorkflowConfigurations>;

/** The shape of `workflow_definition` the voice agent reads; other keys are kept unchanged. */
export const WorkflowDefinitionDoc = {
  description:
    'What the agent does on a call. Keys the voice agent reads (all optional): `prompt` (string: instructions, the heart of the system prompt), ' +
    '`greeting` (string: the first message unless `workflow_configurations.first_message` is set), `steps` (array of strings or `{say}`: the ' +
    'conversation plan, in order), `closing` (string: the goodbye), `objections` (array of `{objection, answer}`), `mandatory_phrases` ' +
    '(array of strings), `data_to_collect` (array of strings: saved with the `save_information` tool), `silence_prompt` (string: asked after ' +
    'a silence), `knowledge` (string, at most 20,000 characters: the knowledge box, inlined whole into the system prompt of every call, ' +
    "a flow's steps included; the text `POST /agent-templates/extract-text` gives; larger documents belong in the knowledge base). " +
    "Text may use `{{initial_context.<key>}}`, filled from the call's `initial_context` over `template_context_variables`. " +
    'A definition with `nodes` and `edges` is a conversation flow instead (FlowDefinition, docs/flows.md); a flat one is a one-step flow.',
};
