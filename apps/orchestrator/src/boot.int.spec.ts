import 'reflect-metadata';
import { describeServiceBoot } from '@novelrag/testkit';
import { orchestratorDefinition } from './service.definition';

describeServiceBoot(orchestratorDefinition);
