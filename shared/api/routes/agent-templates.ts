/** Agent templates and AI-assisted agent authoring (filled in by the agent-templates slice). */
export const agentTemplateRoutes = {};
