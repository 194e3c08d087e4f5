export * from './checks';
export * from './faults';
export * from './human';
export * from './observe';
export * from './options';
export * from './run';
