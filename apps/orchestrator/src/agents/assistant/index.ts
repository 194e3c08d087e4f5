export { AssistantAgent, DEFAULT_ASSISTANT_SETTINGS } from './assistant-agent';
export type { AssistantSettings } from './assistant-run';
