import * as z from 'zod';
import { TEST_RUN_STATUSES } from '../domain/agent-test-runs.ts';
import { CALLER_BEHAVIOURS, EXPECTATION_TYPES } from '../domain/agent-tests.ts';
import { TEST_MODES } from '../domain/caller-actions.ts';
import { freeFormObject, JsonObject, nameText, Timestamp } from './common.ts';
import {
  documentedInt,
  MAX_ID_CHARS,
  MAX_NAME_CHARS,
  MAX_STORED_CHARS,
  MAX_STORED_ITEMS,
  nonNegativeInt,
} from './bounds.ts';
import { AgentIdParam } from './agents.ts';
import { PaginationQuery, pageOf } from './pagination.ts';

/** Caps of a test case: it is one item (at most 400 KB) and one conversation. */
export const TEST_CASE_CAPS = {
  perAgent: 200,
  expectations: 32,
  toolMocks: 32,
  tags: 16,
  scriptTurns: 50,
  maxTurns: 50,
  timeoutSeconds: 600,
} as const;

const TestCaseId = z
  .string()
  .regex(/^test_[A-Za-z0-9]{16}$/)
  .openapi({ maxLength: 21, example: 'test_Hq3mT8vW1xZ5bN7c' });

const Tag = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/)
  .openapi({ maxLength: 40, description: 'Lower-case letters, digits, `_` and `-`, at most 40.', example: 'smoke' });

const ToolName = z.string().min(1).max(64).openapi({ description: "The name of one of the agent's HTTP tools." });

export const SimulatedCaller = z
  .object({
    persona: z.string().min(1).max(2000).openapi({
      description: 'Who the caller is, in words: the model playing the caller reads it.',
      example: 'Anna Kowalska, 67, a patient of North Clinic, polite but a little hard of hearing',
    }),
    goal: z.string().min(1).max(2000).openapi({
      description: 'What the caller wants from the conversation, in words.',
      example: 'Move tomorrow’s 10:00 appointment to Friday afternoon',
    }),
    language: z
      .string()
      .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/)
      .openapi({ maxLength: 35, description: 'BCP 47 language the caller speaks.', example: 'en' })
      .default('en'),
    behaviour: z
      .array(z.enum(CALLER_BEHAVIOURS))
      .max(CALLER_BEHAVIOURS.length)
      .default(['cooperative'])
      .openapi({
        description:
          "How the caller behaves: `cooperative`, `hesitant` (pauses, unsure), `rushed` (short answers), `interrupts` (in a voice case, talks over each of the agent's answers after the greeting), `off_topic` (drifts to other subjects), `presses_keys` (answers a menu with keys).",
        example: ['hesitant'],
      }),
    script: z
      .array(z.string().min(1).max(2000))
      .max(TEST_CASE_CAPS.scriptTurns)
      .optional()
      .openapi({
        description:
          "The caller's turns in order, when they must be exact (the model plays the caller only beyond them; after the last it says goodbye). At most `max_turns`. In a voice case a turn may be `[pressed 12#]` (those keys on the keypad) or `[silence]` (nothing said until the agent speaks again); a text case refuses them (422).",
        example: ['Hello, I need to move my appointment.', 'Friday afternoon, please.'],
      }),
  })
  .openapi('SimulatedCaller', { description: 'The caller a model plays against the agent.' });

export const ToolMock = z
  .object({
    tool: ToolName,
    status: documentedInt(z.int().gte(100).lte(599)).default(200).openapi({ description: 'The HTTP status answered.' }),
    body: z.unknown().openapi({
      description: 'What the tool answers (JSON, or a string sent as it is).',
      example: { slots: ['Friday 14:00', 'Friday 15:30'] },
    }),
  })
  .openapi('ToolMock', {
    description:
      "The answer the agent gets when it calls this tool during the test: the customer's system is not called.",
  });

const ExpectationBase = {
  description: z.string().max(500).optional().openapi({ description: 'Shown in the results.' }),
};

export const Expectation = z
  .discriminatedUnion('type', [
    z
      .object({
        type: z.literal('tool_called'),
        tool: ToolName,
        called: z.boolean().default(true).openapi({ description: '`false`: the tool must not be called.' }),
        arguments: freeFormObject(4_000).optional().openapi({
          description:
            'The call must carry at least these arguments (strings compared without case); at most 4 kB, nested at most 32 levels.',
        }),
        ...ExpectationBase,
      })
      .openapi('ToolCalledExpectation'),
    z
      .object({
        type: z.literal('step_reached'),
        step: z.string().min(1).max(48).openapi({ description: 'A node id of the tested flow.' }),
        reached: z.boolean().default(true),
        ...ExpectationBase,
      })
      .openapi('StepReachedExpectation'),
    z
      .object({
        type: z.literal('variable_gathered'),
        variable: z.string().min(1).max(64),
        value: z.unknown().optional().openapi({ description: 'The value it must have; any value when absent.' }),
        ...ExpectationBase,
      })
      .openapi('VariableGatheredExpectation'),
    z
      .object({ type: z.literal('disposition'), code: z.string().min(1).max(64), ...ExpectationBase })
      .openapi('DispositionExpectation'),
    z
      .object({
        type: z.literal('ended_by_agent'),
        ended: z.boolean().default(true).openapi({ description: '`false`: the agent must not end the conversation.' }),
        ...ExpectationBase,
      })
      .openapi('EndedByAgentExpectation'),
    z
      .object({
        type: z.literal('phrase_said'),
        phrase: z.string().min(1).max(500).openapi({ description: 'Said by the agent (case and spaces ignored).' }),
        said: z.boolean().default(true).openapi({ description: '`false`: the agent must never say it.' }),
        ...ExpectationBase,
      })
      .openapi('PhraseSaidExpectation'),
    z
      .object({
        type: z.literal('max_turns'),
        turns: documentedInt(z.int().gte(1).lte(TEST_CASE_CAPS.maxTurns)).openapi({
          description: "The caller's turns must be at most this many (less than the case's `max_turns`).",
        }),
        ...ExpectationBase,
      })
      .openapi('MaxTurnsExpectation'),
    z
      .object({
        type: z.literal('judged'),
        criteria: z.string().min(1).max(2000).openapi({
          description: 'In words; a model grades the transcript against it (pass or fail, with its reason).',
          example: 'The agent reads the recording notice before asking for personal data',
        }),
        ...ExpectationBase,
      })
      .openapi('JudgedExpectation'),
  ])
  .openapi('Expectation');
export type Expectation = z.infer<typeof Expectation>;

const TestMode = z.enum(TEST_MODES).openapi({
  description:
    "`text` (default): the conversation over the chat transport, fast and cheap. `voice`: over a voice line of the media service (a voice session, mode `webrtc`; on the local stack a phone call through the local Twilio, mode `phone`), the caller's turns said by text-to-speech and the agent's audio heard by speech-to-text, so turn-taking, interruptions, keys and silence are tested, and what the caller heard is the transcript.",
});

const testCaseFields = {
  name: nameText(z.string().min(1).max(255)).openapi({ example: 'Reschedules to Friday' }),
  mode: TestMode.default('text'),
  caller: SimulatedCaller,
  initial_context: freeFormObject(32_000).default({}),
  tool_mocks: z.array(ToolMock).max(TEST_CASE_CAPS.toolMocks).default([]),
  call_real_tools: z.boolean().default(false).openapi({
    description:
      "`true`: a tool without a mock is called for real (the customer's system). Default `false`: it answers an error saying it is not mocked.",
  }),
  max_turns: documentedInt(z.int().gte(1).lte(TEST_CASE_CAPS.maxTurns))
    .default(10)
    .openapi({ description: "The caller's turns after which the test ends the conversation." }),
  timeout_seconds: documentedInt(z.int().gte(10).lte(TEST_CASE_CAPS.timeoutSeconds))
    .default(120)
    .openapi({ description: 'A conversation still going after this is stopped and the case fails.' }),
  tags: z.array(Tag).max(TEST_CASE_CAPS.tags).default([]),
  expectations: z.array(Expectation).min(1).max(TEST_CASE_CAPS.expectations),
};

export const CreateTestCaseRequest = z.object(testCaseFields).openapi('CreateTestCaseRequest');
export type CreateTestCaseRequest = z.infer<typeof CreateTestCaseRequest>;

export const UpdateTestCaseRequest = z
  .object({
    name: testCaseFields.name.optional(),
    mode: TestMode.optional(),
    caller: SimulatedCaller.optional(),
    initial_context: freeFormObject(32_000).optional(),
    tool_mocks: z.array(ToolMock).max(TEST_CASE_CAPS.toolMocks).optional(),
    call_real_tools: z.boolean().optional(),
    max_turns: documentedInt(z.int().gte(1).lte(TEST_CASE_CAPS.maxTurns)).optional(),
    timeout_seconds: documentedInt(z.int().gte(10).lte(TEST_CASE_CAPS.timeoutSeconds)).optional(),
    tags: z.array(Tag).max(TEST_CASE_CAPS.tags).optional(),
    expectations: z.array(Expectation).min(1).max(TEST_CASE_CAPS.expectations).optional(),
  })
  .openapi('UpdateTestCaseRequest', { description: 'The fields to change; each replaces the stored one whole.' });
export type UpdateTestCaseRequest = z.infer<typeof UpdateTestCaseRequest>;

export const TestCase = z
  .object({
    id: TestCaseId,
    workflow_id: documentedInt(z.int()),
    ...testCaseFields,
    initial_context: JsonObject,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('TestCase', { description: 'A simulated conversation with an agent and what it must show.' });
export type TestCase = z.infer<typeof TestCase>;

export const TestCasePage = pageOf(TestCase, 'TestCasePage');

export const ListTestCasesQuery = PaginationQuery.extend({
  tag: Tag.optional().openapi({ description: 'Only the cases with this tag.' }),
});

export const TestCaseParams = AgentIdParam.extend({ test_id: TestCaseId });

export { TestCaseId, Tag };

const TestRunId = documentedInt(z.int().gte(1)).openapi({
  description: 'Id of a test run of this agent.',
  example: 31,
});

export const CreateTestRunRequest = z
  .object({
    test_ids: z
      .array(TestCaseId)
      .min(1)
      .max(TEST_CASE_CAPS.perAgent)
      .optional()
      .openapi({ description: 'The cases to run; all of the agent’s when neither this nor `tag` is given.' }),
    tag: Tag.optional().openapi({ description: 'Run the cases with this tag.' }),
    definition_id: documentedInt(z.int().gte(1))
      .optional()
      .openapi({ description: 'The version to test (a draft included); the current one by default.', example: 118 }),
    repeat: documentedInt(z.int().gte(1).lte(10))
      .default(1)
      .openapi({ description: 'Attempts per case (a model varies): the verdict says how many passed.' }),
    parallelism: documentedInt(z.int().gte(1).lte(20)).default(5).openapi({
      description:
        "Cases talking at once, at most; never more than half of the organization's channels, so live calls always have the other half.",
    }),
  })
  .openapi('CreateTestRunRequest');
export type CreateTestRunRequest = z.infer<typeof CreateTestRunRequest>;

const Verdict = z.enum(['passed', 'failed', 'error']);

export const ExpectationResult = z
  .object({
    index: documentedInt(z.int().gte(0)).openapi({ description: "The expectation's place in the case." }),
    type: z.enum(EXPECTATION_TYPES),
    passed: z.boolean(),
    reason: z.string().max(MAX_STORED_CHARS).openapi({
      description: 'Why, quoting the conversation (for a judged criterion, the model’s reason).',
      example: 'find_slots was called with arguments matching {"day":"Friday"}: {"day":"Friday"}',
    }),
  })
  .openapi('ExpectationResult');

export const TestAttempt = z
  .object({
    attempt: documentedInt(z.int().gte(1)),
    verdict: Verdict,
    expectations: z.array(ExpectationResult).max(TEST_CASE_CAPS.expectations),
    transcript: z
      .array(z.object({ role: z.enum(['user', 'assistant']), text: z.string().max(MAX_STORED_CHARS) }))
      .max(MAX_STORED_ITEMS)
      .openapi({ description: 'The conversation: `user` is the simulated caller.' }),
    tool_calls: z
      .array(
        z.object({
          name: z.string().max(MAX_ID_CHARS),
          arguments: JsonObject,
          result: z.string().max(MAX_STORED_CHARS).nullable(),
        }),
      )
      .max(MAX_STORED_ITEMS),
    path: z.array(z.string().max(MAX_ID_CHARS)).max(MAX_STORED_ITEMS).openapi({
      description: 'The flow steps entered, in order (empty for a flat definition).',
    }),
    conversation_id: documentedInt(z.int()).nullable().openapi({
      description: 'The chat conversation it ran in (`GET /agents/{agent_id}/conversations/{id}`: logs, cost).',
    }),
    latency_ms: documentedInt(z.int().gte(0)).nullable().openapi({
      description: "Median time from the caller's message to the agent's first words.",
    }),
    turn_latencies_ms: z
      .array(documentedInt(z.int().gte(0)).nullable())
      .max(TEST_CASE_CAPS.maxTurns)
      .openapi({
        description:
          "Per caller turn, in order: milliseconds from the caller's message (voice: the end of its words or keys) to the agent's first words (voice: its first audio); null for a turn the agent did not answer (a silence, the goodbye the agent hung up on).",
        example: [412, 388, null],
      }),
    cost_usd: z.number().gte(0).openapi({
      description:
        "The conversation's cost and the simulated caller's and judge's model tokens at the platform model's price (none with the organization's own model key).",
    }),
    model_tokens: z.object({ input_tokens: nonNegativeInt(), output_tokens: nonNegativeInt() }).openapi({
      description:
        "Tokens the simulated caller and the judge used, as the model's provider reported them (the agent's own are in the conversation's cost).",
    }),
    error: z.string().max(MAX_STORED_CHARS).nullable().openapi({
      description: 'Why the attempt has no verdict of its expectations (its time exceeded, no channel free).',
    }),
    started_at: Timestamp,
    ended_at: Timestamp,
  })
  .openapi('TestAttempt');

export const TestCaseResult = z
  .object({
    test_id: TestCaseId,
    name: z.string().max(MAX_NAME_CHARS),
    verdict: z.enum(['passed', 'failed', 'error', 'pending', 'cancelled']).openapi({
      description:
        '`passed` when every attempt passed; `error` when one could not run; `pending` until its attempts are in; `cancelled` when the run was cancelled first.',
    }),
    passed_attempts: nonNegativeInt(),
    attempts: z.array(TestAttempt).max(10),
  })
  .openapi('TestCaseResult');

const TestRunSummary = z
  .object({
    cases: nonNegativeInt(),
    passed: nonNegativeInt(),
    failed: nonNegativeInt(),
    errors: nonNegativeInt(),
    pending: nonNegativeInt(),
    cancelled: nonNegativeInt(),
    cost_usd: z.number().gte(0),
  })
  .openapi('TestRunSummary');

const testRunFields = {
  id: TestRunId,
  workflow_id: documentedInt(z.int()),
  definition_id: documentedInt(z.int()),
  status: z.enum(TEST_RUN_STATUSES).openapi({
    description: '`running`, then `completed` (every case has its verdict) or `cancelled` (the verdicts so far stay).',
  }),
  repeat: documentedInt(z.int().gte(1)),
  parallelism: documentedInt(z.int().gte(1)).openapi({ description: 'Cases talking at once (as allowed).' }),
  created_at: Timestamp,
  completed_at: Timestamp.nullable(),
  summary: TestRunSummary,
};

export const TestRunListItem = z.object(testRunFields).openapi('TestRunListItem');
export const TestRun = z
  .object({ ...testRunFields, cases: z.array(TestCaseResult).max(TEST_CASE_CAPS.perAgent) })
  .openapi('TestRun', { description: 'A run of test cases against one version of the agent, with each verdict.' });
export type TestRun = z.infer<typeof TestRun>;
export const TestRunPage = pageOf(TestRunListItem, 'TestRunPage');

export const TestRunParams = AgentIdParam.extend({ test_run_id: documentedInt(z.int().gte(1)) });
