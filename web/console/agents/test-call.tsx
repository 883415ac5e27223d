/** A test call from an agent's page: the agent calls a number, and the page follows to the call. */
import { useMutation } from '../lib/mutation.ts';
import { useState } from 'preact/hooks';
import { answer, type Schemas, useApi } from '../lib/api.ts';
import { navigate } from '../lib/route.ts';
import { ErrorLine, onSubmitRun } from '../lib/ui.tsx';

type Agent = Schemas['Agent'];

export function TestCall({ agent }: { agent: Agent }) {
  const api = useApi();
  const [phoneNumber, setPhoneNumber] = useState('');
  const call = useMutation({
    mutationFn: () =>
      answer(
        api.POST('/agents/{agent_id}/calls', {
          params: { path: { agent_id: agent.public_id } },
          body: { phone_number: phoneNumber },
        }),
      ),
    onSuccess: (placed) => navigate('calls', agent.public_id, placed.workflow_run_id),
  });
  return (
    <form aria-labelledby="test-call-title" onSubmit={onSubmitRun(() => call.mutate())}>
      <h3 id="test-call-title">Place a test call</h3>
      <label for="test-call-number">Phone number (E.164)</label>
      <input
        id="test-call-number"
        type="tel"
        required
        placeholder="+48601234567"
        value={phoneNumber}
        onInput={(e) => setPhoneNumber(e.currentTarget.value)}
      />
      <button type="submit" disabled={call.isPending || agent.status !== 'active'}>
        Call
      </button>
      <ErrorLine error={call.error} />
    </form>
  );
}
