/** Injection token of the service's `ResourceRepository`. */
export const RESOURCE_REPOSITORY = Symbol('RESOURCE_REPOSITORY');
/** Injection token of the opened store's `ResourceBackend` (repository and thread memory). */
export const RESOURCE_BACKEND = Symbol('RESOURCE_BACKEND');
/** Injection token of the service's `ThreadMemory`. */
export const THREAD_MEMORY = Symbol('THREAD_MEMORY');
