/**
 * The console's flow editor in a real headless Chromium: a three-step flow with a branch built by
 * keyboard (steps, fields, a transition from the side panel) and by mouse (transitions dragged
 * between the steps' handles), saved as a draft and published; an invalid graph gets the API's
 * 422 on the steps and transitions it concerns; the version history says what changed, tries a
 * draft in a chat, rolls back and opens an earlier version; a call's page draws the path a chat
 * took through the published flow; a step's kind changes in place, and unsaved changes are asked
 * about before they are lost (leaving the page, opening a version, closing the tab). Loopback only.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { accessibilityViolations, launchChromium, saveScreenshot } from '../support/browser.ts';
import { connectSession } from '../support/sessions.ts';

const api = apiClient();
const consoleUrl = new URL('/console/', inject('baseUrl')).toString();
let org: TestOrganization;
let browser: Browser;
let agentId: string;
let firstVersion: number;
const offLoopback: string[] = [];

beforeAll(async () => {
  org = await newOrganization('Flow editor', 3);
  const created = await api.request<{ public_id: string; current_definition_id: number }>('POST', '/agents', {
    key: org.key,
    body: {
      name: 'North Clinic',
      workflow_definition: { prompt: 'You book visits at North Clinic.', greeting: 'Hello, North Clinic here.' },
      call_disposition_codes: { adult: 'An adult caller', minor: 'A minor' },
    },
  });
  expect(created.status, created.text).toBe(201);
  agentId = created.body.public_id;
  firstVersion = created.body.current_definition_id;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function editor(): Promise<Page> {
  const page = await browser.newPage();
  page.on('request', (request) => {
    if (new URL(request.url()).hostname !== '127.0.0.1') offLoopback.push(request.url());
  });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${consoleUrl}#/agents/${agentId}/flow`);
  await page.getByLabel('API key').fill(org.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Conversation flow of North Clinic' }).waitFor();
  return page;
}

const node = (page: Page, id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);

/** A transition drawn by mouse: from the lower handle of one step to the upper handle of another. */
async function drag(page: Page, from: string, to: string) {
  const start = (await node(page, from).locator('.react-flow__handle.source').boundingBox())!;
  const end = (await node(page, to).locator('.react-flow__handle.target').boundingBox())!;
  await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2);
  await page.mouse.down();
  await page.mouse.move(end.x + end.width / 2, end.y + end.height / 2, { steps: 10 });
  await page.mouse.up();
}

/** Presses a button from the keyboard: focused, then Enter. */
async function press(page: Page, name: string) {
  await page.getByRole('button', { name, exact: true }).focus();
  await page.keyboard.press('Enter');
}

const transitions = (page: Page) => page.getByRole('list', { name: 'Transitions' });

/** A chat with the agent's current version, each message sent once the agent has answered; the run once completed. */
async function chat(messages: string[]) {
  const created = await api.request<{ id: number; session: { url: string; run_ref: string; token: string } }>(
    'POST',
    `/agents/${agentId}/conversations`,
    { key: org.key, body: { mode: 'chat', name: 'flow editor test' } },
  );
  expect(created.status, created.text).toBe(200);
  const session = await connectSession(created.body.session);
  const until = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: 15_000, interval: 100 });
  await until(() => expect(session.of('mark').length).toBeGreaterThan(0));
  for (const text of messages) {
    const marks = session.of('mark').length;
    session.send({ event: 'message', text });
    await until(() => expect(session.of('mark').length).toBeGreaterThan(marks));
  }
  await session.closed;
  return until(async () => {
    const run = await api.request('GET', `/agents/${agentId}/conversations/${created.body.id}`, { key: org.key });
    expect(run.body.status).toBe('completed');
    return run.body;
  });
}

describe.skipIf(needsLocalStack)('the flow editor (Chromium)', () => {
  it('builds a three-step flow with a branch by keyboard and mouse, saves it as a draft and publishes it', async () => {
    const page = await editor();
    // A flat agent opens as the flow it behaves as: its greeting and prompt, then an end.
    await node(page, 'start').waitFor();
    await node(page, 'end').waitFor();
    expect(await transitions(page).textContent()).toContain('Conversation → Goodbye');

    // The old transition goes (selected from the outline, deleted from the toolbar).
    await transitions(page).getByRole('button', { name: 'Conversation → Goodbye' }).click();
    await press(page, 'Delete selected');
    expect(await transitions(page).getByRole('listitem').count()).toBe(0);

    // A conversation step added from the keyboard, its fields typed in the side panel.
    await page.getByLabel('New step').selectOption('agentNode');
    await press(page, 'Add step');
    await page.getByLabel('Name', { exact: true }).fill('Ask age');
    await page.getByLabel('Prompt: what the agent does here').fill('Find out how old the caller is.');
    await press(page, 'Add a variable');
    await page.getByLabel('Variable 1: name').fill('age');
    await page.getByLabel('Variable 1: type').selectOption('number');
    await page.getByLabel('Variable 1: hint for the model').fill("The caller's age in years");
    // An end for minors, with its closing words and disposition.
    await page.getByLabel('New step').selectOption('endCall');
    await press(page, 'Add step');
    await page.getByLabel('Name', { exact: true }).fill('Minor');
    await page.getByLabel('Closing words').fill('Sorry, our visits are for adults. Goodbye.');
    await page.getByLabel('Disposition').selectOption('minor');

    // The start step, selected on the canvas from the keyboard, is joined to "Ask age" from its panel.
    await node(page, 'start').focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Start: Conversation' }).waitFor();
    await page.getByLabel('Add a transition from “Conversation” to').selectOption({ label: 'Ask age' });
    await press(page, 'Add transition');
    await page.getByRole('heading', { name: 'Transition “Conversation” → “Ask age”' }).waitFor();

    // The branch, drawn by mouse: "Ask age" to each end, each with its test on the age.
    await drag(page, 'step_1', 'end');
    await page.getByRole('heading', { name: 'Transition “Ask age” → “Goodbye”' }).waitFor();
    await page.getByLabel('Expression on the variables (checked first)').fill('age >= 18');
    await drag(page, 'step_1', 'end_1');
    await page.getByRole('heading', { name: 'Transition “Ask age” → “Minor”' }).waitFor();
    await page.getByLabel('Expression on the variables (checked first)').fill('age < 18');
    await page.getByLabel('Label').fill('Too young');
    expect(await transitions(page).getByRole('listitem').allTextContents()).toEqual([
      'Conversation → Ask age once the step is complete',
      'Ask age → Goodbye age >= 18',
      'Ask age → Minor Too young',
    ]);

    // The flow is sound by the API's rules, as checked while it was edited.
    expect(await page.getByRole('list', { name: 'Problems', exact: true }).count()).toBe(0);
    // Placed anew in layers from the start: the two ends side by side under "Ask age".
    await press(page, 'Arrange the steps');
    // The steps move, and the view takes them in, over the frames after the press.
    const rows = async () => {
      const [ask, adult, young] = await Promise.all(
        ['step_1', 'end', 'end_1'].map((id) => node(page, id).boundingBox()),
      );
      return { endsBelowAsk: adult!.y > ask!.y, endsSideBySide: young!.y === adult!.y };
    };
    await expect.poll(rows).toEqual({ endsBelowAsk: true, endsSideBySide: true });

    await page.getByLabel('What changed (optional note for the history)').fill('Ask the age first');
    await press(page, 'Save as draft');
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^Saved draft #\d+\.$/);
    const draftId = Number((await page.getByRole('status').first().textContent())!.match(/#(\d+)/)![1]);
    const draft = await api.request('GET', `/agents/${agentId}/definitions/${draftId}`, { key: org.key });
    expect(draft.body).toMatchObject({ status: 'draft', note: 'Ask the age first' });
    expect(
      draft.body.workflow_definition.nodes.map((step: { id: string; type: string }) => [step.id, step.type]),
    ).toEqual([
      ['start', 'startCall'],
      ['end', 'endCall'],
      ['step_1', 'agentNode'],
      ['end_1', 'endCall'],
    ]);
    expect(draft.body.workflow_definition.nodes[2]).toMatchObject({
      name: 'Ask age',
      prompt: 'Find out how old the caller is.',
      extract: [{ name: 'age', type: 'number', hint: "The caller's age in years" }],
    });
    expect(draft.body.workflow_definition.nodes[3]).toMatchObject({
      closing: 'Sorry, our visits are for adults. Goodbye.',
      disposition: 'minor',
    });
    expect(draft.body.workflow_definition.edges).toEqual([
      { source: 'start', target: 'step_1' },
      { source: 'step_1', target: 'end', expression: 'age >= 18' },
      { source: 'step_1', target: 'end_1', expression: 'age < 18', label: 'Too young' },
    ]);
    // Every step keeps where it was drawn.
    for (const step of draft.body.workflow_definition.nodes) expect(step.position).toBeDefined();

    await press(page, 'Publish');
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toBe(`Published version #${draftId}: calls started from now on run it.`);
    const agent = await api.request('GET', `/agents/${agentId}`, { key: org.key });
    expect(agent.body.current_definition_id).toBe(draftId);
    await saveScreenshot(page, 'console-flow-editor');
    expect(offLoopback).toEqual([]);
    await page.close();
  });

  it('draws on a call’s page the path a chat took through the published flow, each branch once', async () => {
    const adult = await chat(['Hello', 'I am 42']);
    const minor = await chat(['Hello', 'I am 12']);
    expect(adult.flow.map((step: { node_id: string }) => step.node_id)).toEqual(['start', 'step_1', 'end']);
    expect(minor.flow.map((step: { node_id: string }) => step.node_id)).toEqual(['start', 'step_1', 'end_1']);
    expect(minor.gathered_context).toEqual({ age: 12, call_disposition: 'minor' });

    const page = await browser.newPage();
    await page.goto(`${consoleUrl}#/calls/${agentId}/${minor.id}`);
    await page.getByLabel('API key').fill(org.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const path = page.getByRole('list', { name: 'Path through the flow' });
    await path.getByRole('listitem').nth(2).waitFor();
    expect(await path.getByRole('listitem').allTextContents()).toEqual([
      'Conversation — left because the step was complete',
      'Ask age — left because age < 18 held',
      'Minor',
    ]);
    // The graph is the run's version, read-only: the steps entered numbered, the transitions taken marked.
    const graph = page.getByRole('region', { name: 'The flow, with the path the call took' });
    await graph.locator('.react-flow__node[data-id="end_1"]').waitFor();
    expect(await graph.locator('.react-flow__node[data-id="end_1"] .flow-visits').textContent()).toBe(
      'Step 3 of the call',
    );
    expect(await graph.locator('.react-flow__node[data-id="end"] .flow-visits').count()).toBe(0);
    // Edges are drawn once the nodes are measured, after the nodes themselves.
    await graph
      .locator('.react-flow__edge.flow-taken')
      .nth(1)
      .waitFor()
      .catch(async (error: unknown) => {
        // Seen once in CI (not reproduced since): what the graph held when the second never showed.
        const drawn = await graph.evaluate((region) => ({
          nodes: [...region.querySelectorAll('.react-flow__node')].map(
            (node) => `${node.getAttribute('data-id')} ${node.clientWidth}x${node.clientHeight}`,
          ),
          edges: [...region.querySelectorAll('.react-flow__edge')].map(
            (edge) => `${edge.getAttribute('class')} d=${edge.querySelector('path')?.getAttribute('d')}`,
          ),
        }));
        throw new Error(`the second taken transition never showed; drawn: ${JSON.stringify(drawn)}`, { cause: error });
      });
    expect(await graph.locator('.react-flow__edge.flow-taken').count()).toBe(2);
    expect(await graph.locator('.react-flow__handle.connectable').count()).toBe(0);
    await saveScreenshot(page, 'console-call-flow-path', page.getByRole('region', { name: /^Path through the flow/ }));
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.close();
  });

  it('shows the API’s problems on the steps and transitions they concern, and passes the WCAG audit', async () => {
    const page = await editor();
    await node(page, 'step_1').waitFor();
    // An end nobody reaches, and a test naming a variable no step extracts.
    await page.getByLabel('New step').selectOption('endCall');
    await press(page, 'Add step');
    // Checked as it is edited, by the API's own rules: the new end is out of reach at once.
    await expect
      .poll(() => node(page, 'end_2').locator('.flow-problems').textContent())
      .toBe('node end_2 cannot be reached from the start');
    await transitions(page).getByRole('button', { name: 'Ask age → Goodbye' }).click();
    await page.getByLabel('Expression on the variables (checked first)').fill('weight > 80');
    await press(page, 'Save as draft');
    await page
      .getByRole('alert')
      .filter({ hasText: 'Not saved: the API found 2 problem(s), shown on the flow.' })
      .waitFor();
    expect(await node(page, 'end_2').locator('.flow-problems').textContent()).toBe(
      'node end_2 cannot be reached from the start',
    );
    expect(await page.locator('.react-flow__edge.flow-invalid').count()).toBe(1);
    expect(await page.locator('.react-flow__edge.flow-invalid').textContent()).toContain(
      'expression: weight is not a variable of the flow',
    );
    const problems = page.getByRole('list', { name: 'Problems', exact: true });
    expect(await problems.getByRole('listitem').allTextContents()).toEqual([
      'Transition “Ask age” → “Goodbye”: expression: weight is not a variable of the flow (extracted by a node, or fetched before the call)',
      'Step “End 2”: node end_2 cannot be reached from the start',
    ]);
    // A problem leads to its step, whose panel says it too.
    await problems.getByRole('button', { name: 'Step “End 2”' }).click();
    expect(await page.getByRole('list', { name: 'Problems with the selection' }).textContent()).toBe(
      'node end_2 cannot be reached from the start',
    );
    await saveScreenshot(page, 'console-flow-problems');
    expect(await accessibilityViolations(page)).toEqual([]);

    // A field only the API checks: its 422 on the step, beside the problems checked as it is edited.
    await page.getByRole('list', { name: 'Steps' }).getByRole('button', { name: 'Ask age' }).click();
    await page.getByLabel('Variable 1: name').fill('Age');
    await press(page, 'Save as draft');
    await page
      .getByRole('alert')
      .filter({ hasText: 'Not saved: the API found 1 problem(s), shown on the flow.' })
      .waitFor();
    expect(await node(page, 'step_1').locator('.flow-problems').textContent()).toContain(
      "extract.0.name: String should match pattern '^[a-z][a-z0-9_]{0,63}$'",
    );
    expect(await problems.getByRole('listitem').first().textContent()).toMatch(
      /^Step “Ask age”: extract\.0\.name: String should match pattern/,
    );
    await page.close();
  });

  it('says what changed between a version and the current one, and rolls back to the first', async () => {
    const page = await editor();
    const versions = page.getByRole('table', { name: 'Versions of the definition' });
    await versions.getByRole('row').nth(2).waitFor();
    expect(await versions.getByRole('row').nth(1).textContent()).toMatch(/^#\d+currentAsk the age first/);
    await page.getByRole('button', { name: `Compare #${firstVersion}` }).click();
    const changes = page.getByRole('list', { name: /^From version #\d+ to the current version/ });
    expect(await changes.textContent()).toBe('A flat prompt became a flow of 4 steps');

    // A draft that changes one prompt: the comparison names the step, the field, before and after.
    await transitions(page).getByRole('button', { name: 'Conversation → Ask age' }).waitFor();
    await page.getByRole('list', { name: 'Steps' }).getByRole('button', { name: 'Ask age' }).click();
    await page.getByLabel('Prompt: what the agent does here').fill('Ask the caller for their age.');
    await press(page, 'Save as draft');
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^Saved draft #\d+\.$/);
    const draftId = Number((await page.getByRole('status').first().textContent())!.match(/#(\d+)/)![1]);
    await page.getByRole('button', { name: `Compare #${draftId}` }).click();
    await expect
      .poll(() => page.getByRole('list', { name: /^From version #\d+ to the current version/ }).textContent())
      .toBe('Changed step “Ask age”: prompt: “Ask the caller for their age.” → “Find out how old the caller is.”');
    await saveScreenshot(page, 'console-flow-versions', page.getByRole('region', { name: 'Versions' }));

    // Try it: a chat with the draft, while the published version stays what others get.
    // In place, signed in once: the console's talk panel with the draft's definition_id.
    await page.getByRole('button', { name: `Try it: talk to draft #${draftId}` }).click();
    const trying = page.getByRole('region', { name: `Try draft #${draftId}` });
    await trying.getByRole('button', { name: 'Chat' }).click();
    await expect.poll(() => trying.getByRole('status').textContent()).toMatch(/^Connected: conversation \d+$/);
    const tried = Number((await trying.getByRole('status').textContent())!.match(/(\d+)$/)![1]);
    const run = await api.request('GET', `/agents/${agentId}/conversations/${tried}`, { key: org.key });
    expect(run.body.definition_id).toBe(draftId);
    await page.getByRole('button', { name: `Try it: talk to draft #${draftId}` }).click();
    expect(await trying.count()).toBe(0);

    await page.getByRole('button', { name: `Roll back to #${firstVersion}` }).click();
    await expect
      .poll(() => page.getByRole('status').last().textContent())
      .toBe(`Version #${firstVersion} is now the current one.`);
    const agent = await api.request('GET', `/agents/${agentId}`, { key: org.key });
    expect(agent.body.current_definition_id).toBe(firstVersion);
    expect(agent.body.workflow_definition).toEqual({
      prompt: 'You book visits at North Clinic.',
      greeting: 'Hello, North Clinic here.',
    });
    // An earlier version opens in the editor, to start a draft from it.
    await page.getByRole('button', { name: `Open #${draftId}` }).click();
    await page.getByText(`Editing version #${draftId}.`).waitFor();
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(4);
    expect(await page.getByLabel('Prompt: what the agent does here').count()).toBe(0);
    await page.getByRole('list', { name: 'Steps' }).getByRole('button', { name: 'Ask age' }).click();
    expect(await page.getByLabel('Prompt: what the agent does here').inputValue()).toBe(
      'Ask the caller for their age.',
    );
    // The selected step goes with the Delete key on the canvas, and its transitions with it.
    await node(page, 'step_1').focus();
    await page.keyboard.press('Delete');
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(3);
    expect(await transitions(page).getByRole('listitem').count()).toBe(0);
    await page.close();
  });

  it('changes a step’s kind in place, and asks before unsaved changes are lost', async () => {
    const page = await editor();
    const asked: string[] = [];
    let leave = false;
    page.on('dialog', async (dialog) => {
      asked.push(dialog.type() === 'beforeunload' ? 'beforeunload' : dialog.message());
      await (leave ? dialog.accept() : dialog.dismiss());
    });
    // The current version is the flat one again: the start and the end it behaves as.
    await node(page, 'end').waitFor();
    const steps = page.getByRole('list', { name: 'Steps' });
    const problems = page.getByRole('list', { name: 'Problems', exact: true });
    const unsaved = page.getByText('Unsaved changes.');

    // The end made a conversation step: its transition in is kept; the flow now lacks an end.
    await steps.getByRole('button', { name: 'Goodbye' }).click();
    await page.getByLabel('Kind of step').selectOption('agentNode');
    await page.getByRole('heading', { name: 'Conversation step: Goodbye' }).waitFor();
    await page.getByText('Now of the kind “Conversation step”.').waitFor();
    expect(await transitions(page).getByRole('listitem').allTextContents()).toEqual([
      'Conversation → Goodbye The caller has no more questions',
    ]);
    expect(await problems.getByRole('listitem').allTextContents()).toEqual([
      'The flow: nodes: no endCall node can be reached from the start',
    ]);
    await unsaved.waitFor();
    // The start made an end: the transition out of it goes (an end has none), its greeting and prompt too.
    await steps.getByRole('button', { name: 'Conversation' }).click();
    await page.getByLabel('Kind of step').selectOption('endCall');
    await page
      .getByText('Now of the kind “End”; removed: 1 transition it cannot have, its greeting, prompt.')
      .waitFor();
    expect(await transitions(page).getByRole('listitem').count()).toBe(0);
    expect(await page.getByLabel('Closing words').inputValue()).toBe('');
    expect(await problems.getByRole('listitem').allTextContents()).toContain(
      'The flow: nodes: a flow has exactly one startCall node; it has none',
    );
    await saveScreenshot(page, 'console-flow-kind');
    expect(await accessibilityViolations(page)).toEqual([]);

    // Leaving for the agent's page asks first; staying keeps the page and the edits.
    await page.getByRole('link', { name: 'Back to North Clinic' }).click();
    await expect.poll(() => asked).toEqual(['The flow has unsaved changes. Leave without saving them?']);
    expect(new URL(page.url()).hash).toBe(`#/agents/${agentId}/flow`);
    await page.getByRole('heading', { name: 'Conversation flow of North Clinic' }).waitFor();
    // Opening a version asks too.
    await page.getByRole('button', { name: `Open #${firstVersion}` }).click();
    await expect.poll(() => asked.length).toBe(2);
    expect(asked[1]).toBe(`The flow has unsaved changes. Open version #${firstVersion} without saving them?`);
    expect(await page.getByText(`Editing version #${firstVersion}.`).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'End: Conversation' }).count()).toBe(1);
    // Another address in the tab (or closing it): the browser's own question (beforeunload); staying keeps the edits.
    await expect(page.goto(`${consoleUrl}?elsewhere`)).rejects.toThrow(/ERR_ABORTED/);
    expect(asked.slice(2)).toEqual(['beforeunload']);
    expect(await page.getByRole('heading', { name: 'End: Conversation' }).count()).toBe(1);

    // Opening the version, agreed to, leaves nothing unsaved: leaving then asks nothing.
    leave = true;
    await page.getByRole('button', { name: `Open #${firstVersion}` }).click();
    await page.getByText(`Editing version #${firstVersion}.`).waitFor();
    expect(await unsaved.count()).toBe(0);
    leave = false;
    await page.getByRole('link', { name: 'Back to North Clinic' }).click();
    await expect.poll(() => new URL(page.url()).hash).toBe(`#/agents/${agentId}`);
    expect(asked).toHaveLength(4);
    await page.close();
  });
});
