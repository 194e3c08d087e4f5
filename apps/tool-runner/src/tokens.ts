/** Nest injection tokens of the tool runner. */
export const SERVICE_CONTEXT = Symbol('SERVICE_CONTEXT');
export const CHAT_MODEL = Symbol('CHAT_MODEL');
export const BUILTIN_TOOLS = Symbol('BUILTIN_TOOLS');
