import 'reflect-metadata';
import { runServiceMain } from '@novelrag/bus';
import { toolRunnerDefinition } from './service.definition';

runServiceMain(toolRunnerDefinition);
