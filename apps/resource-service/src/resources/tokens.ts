/** Injection token of the service's `ResourceRepository`. */
export const RESOURCE_REPOSITORY = Symbol('RESOURCE_REPOSITORY');
