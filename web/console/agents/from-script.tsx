/** A new agent from a call script (typed or read from a file): its analysis is shown for review first. */
import { useMutation } from '../lib/mutation.ts';
import { useState } from 'preact/hooks';
import { answer, extractText, type Schemas, useApi } from '../lib/api.ts';
import { navigate } from '../lib/route.ts';
import { ErrorLine, onSubmitRun } from '../lib/ui.tsx';

type ScriptAnalysis = Schemas['ScriptAnalysis'];

const valueOf = (item: { value: string } | null) => item?.value ?? '';

/** What the model read from a script, shown for review before the agent is made from it. */
function AnalysisReview({ analysis }: { analysis: ScriptAnalysis }) {
  const flow = analysis.call_flow;
  return (
    <div aria-label="Script analysis" role="region">
      <p>
        <strong>Greeting:</strong> {valueOf(flow.greeting)}
      </p>
      <p>
        <strong>Steps:</strong>
      </p>
      <ol>
        {flow.steps.map((step) => (
          <li key={step.value}>
            {step.value} <small>({step.source})</small>
          </li>
        ))}
      </ol>
      <p>
        <strong>Data to collect:</strong> {flow.data_to_collect.map((item) => item.value).join(', ')}
      </p>
      <p>
        <strong>Objections:</strong> {flow.objections.map((item) => `${item.objection} → ${item.answer}`).join('; ')}
      </p>
      {analysis.conflicts.length > 0 && (
        <p>
          <strong>Script and website differ on:</strong>{' '}
          {analysis.conflicts
            .map(
              (conflict) =>
                `${conflict.field} (script “${conflict.script_value}”, website “${conflict.website_value}”)`,
            )
            .join('; ')}
        </p>
      )}
    </div>
  );
}

export function FromScript() {
  const api = useApi();
  const [companyName, setCompanyName] = useState('');
  const [language, setLanguage] = useState('en');
  const [scriptText, setScriptText] = useState('');
  const [url, setUrl] = useState('');
  const [agentName, setAgentName] = useState('');
  const readScript = useMutation({
    mutationFn: (file: File) => extractText(api, file, 'script'),
    onSuccess: setScriptText,
  });
  const analyze = useMutation({
    mutationFn: () =>
      answer(
        api.POST('/agent-templates/analyze-script', {
          body: { company_name: companyName, language, script_text: scriptText, ...(url ? { url } : {}) },
        }),
      ),
  });
  const create = useMutation({
    mutationFn: (analysis: ScriptAnalysis) =>
      answer(api.POST('/agents/from-script', { body: { agent_name: agentName, analysis, generate_with_ai: false } })),
    onSuccess: (agent) => navigate('agents', agent.public_id),
  });
  return (
    <form aria-labelledby="from-script-title" onSubmit={onSubmitRun(() => analyze.mutate())}>
      <h3 id="from-script-title">From a call script</h3>
      <label for="script-company">Company name</label>
      <input id="script-company" value={companyName} onInput={(e) => setCompanyName(e.currentTarget.value)} />
      <label for="script-language">Language</label>
      <input id="script-language" required value={language} onInput={(e) => setLanguage(e.currentTarget.value)} />
      <label for="script-file">Read the script from a file (PDF, DOCX, TXT or MD), or type it below</label>
      <input
        id="script-file"
        type="file"
        accept=".pdf,.docx,.txt,.md"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          if (file) readScript.mutate(file);
        }}
      />
      <ErrorLine error={readScript.error} />
      <label for="script-text">Script</label>
      <textarea
        id="script-text"
        rows={6}
        required
        value={scriptText}
        onInput={(e) => setScriptText(e.currentTarget.value)}
      />
      <label for="script-url">Website (optional)</label>
      <input id="script-url" type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      <button type="submit" disabled={analyze.isPending}>
        Analyze the script
      </button>
      <ErrorLine error={analyze.error} />
      {analyze.data && (
        <>
          <AnalysisReview analysis={analyze.data} />
          <label for="script-agent-name">Agent name</label>
          <input id="script-agent-name" value={agentName} onInput={(e) => setAgentName(e.currentTarget.value)} />
          <button
            type="button"
            disabled={!agentName || create.isPending}
            onClick={() => analyze.data && create.mutate(analyze.data)}
          >
            Create agent from this analysis
          </button>
          <ErrorLine error={create.error} />
        </>
      )}
    </form>
  );
}
