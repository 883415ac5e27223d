import * as z from 'zod';
import { documentedInt, MAX_REQUEST_CHARS } from './bounds.ts';

/** A destination's address: an E.164 number, or a SIP URI where the provider dials SIP. */
const TransferAddress = z
  .string()
  .regex(
    /^(\+[1-9]\d{6,14}|sips?:[^\s@<>"]+@[^\s<>"]+)$/,
    'an E.164 number (+48601234567) or a SIP URI (sip:desk@pbx.example.com)',
  )
  .openapi({ maxLength: MAX_REQUEST_CHARS, example: '+48221234567' });

export const TransferDestination = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,39}$/, 'lower-case letters, digits and _ (the model names the destination by it)')
      .openapi({ maxLength: 40, example: 'front_desk' }),
    address: TransferAddress,
    description: z.string().min(1).max(500).openapi({
      description: 'When to transfer here; the model reads it.',
      example: 'A person at the front desk: bookings the agent cannot make, complaints.',
    }),
    extension: z
      .string()
      .regex(/^[0-9*#wW]{1,32}$/)
      .openapi({ maxLength: 32 })
      .optional()
      .openapi({ description: 'Keys pressed once the destination answers (`w` waits 0.5 s).', example: 'ww12' }),
    mode: z.enum(['cold', 'warm']).default('cold').openapi({
      description:
        '`cold`: the caller is connected at once. `warm`: the person answering first hears `message` (or, without one, a summary of the call the model writes) and only then is the caller connected; a machine that answers is hung up on.',
    }),
    message: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .openapi({ description: 'Warm: what the person answering hears first (`{{initial_context.<key>}}` filled in).' }),
  })
  .openapi('TransferDestination');

/** Transfer to a person (`workflow_configurations.transfer`): the `transfer_call` tool the model may use. */
export const TransferPlan = z
  .strictObject({
    destinations: z.array(TransferDestination).min(1).max(10),
    timeout_seconds: documentedInt(z.int().min(5).max(120)).default(30).openapi({
      description: 'How long the destination rings before the transfer counts as not answered.',
    }),
    on_failure: z.enum(['end', 'continue']).default('end').openapi({
      description:
        'When the destination does not take the call (busy, no answer, a machine on a warm transfer): `end` says the `transfer_failed` phrase and hangs up; `continue` gives the caller back to the agent, which knows the conversation so far and that the transfer failed.',
    }),
  })
  .superRefine((plan, context) => {
    const names = plan.destinations.map((destination) => destination.name);
    names.forEach((name, index) => {
      if (names.indexOf(name) !== index)
        context.addIssue({ code: 'custom', path: ['destinations', index, 'name'], message: `${name} is named twice` });
    });
  })
  .openapi('TransferPlan', {
    description:
      "Transfer to a person: the model gets a `transfer_call` tool naming these destinations (the API's `transfer` control command uses them too). The caller hears the `transferring` phrase, then the provider connects the call; if the destination is busy, does not answer in `timeout_seconds` or a machine answers a warm transfer, the caller hears the `transfer_failed` phrase and the call ends, or (`on_failure: continue`) the agent takes the call back. The run ends when the transferred call does: disposition `transferred` (unless the agent chose one), `gathered_context.transfer` with the outcome, both legs in the cost.",
    example: {
      destinations: [
        {
          name: 'front_desk',
          address: '+48221234567',
          description: 'Bookings the agent cannot make, complaints.',
          mode: 'warm',
        },
        {
          name: 'billing',
          address: 'sip:billing@pbx.example.com',
          description: 'Invoices and payments.',
          mode: 'cold',
        },
      ],
      timeout_seconds: 30,
      on_failure: 'continue',
    },
  });
export type TransferPlan = z.infer<typeof TransferPlan>;
export type TransferDestination = z.infer<typeof TransferDestination>;

/** A transfer the agent or the control API asked for, carried out once the handoff phrase has played. */
export interface TransferIntent {
  destination: TransferDestination;
  /** Warm: what the person answering hears first (the destination's message, or a summary the model wrote). */
  whisper: string | null;
  /** Said to the caller if the destination does not take the call (the `transfer_failed` phrase). */
  failedMessage: string;
  /** How long the destination rings. */
  timeoutSeconds: number;
  /** Not taken: the agent takes the call back (a new media stream on the run) instead of hanging up. */
  continueOnFailure: boolean;
}
