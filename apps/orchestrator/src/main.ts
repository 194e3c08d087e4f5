import 'reflect-metadata';
import { runServiceMain } from '@novelrag/bus';
import { orchestratorDefinition } from './service.definition';

runServiceMain(orchestratorDefinition);
