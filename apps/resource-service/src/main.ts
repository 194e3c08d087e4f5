import 'reflect-metadata';
import { runServiceMain } from '@novelrag/bus';
import { resourceServiceDefinition } from './service.definition';

runServiceMain(resourceServiceDefinition);
