import 'reflect-metadata';
import { runServiceMain } from '@novelrag/bus';
import { gatewayDefinition } from './service.definition';

runServiceMain(gatewayDefinition);
