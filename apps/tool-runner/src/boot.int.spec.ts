import 'reflect-metadata';
import { describeServiceBoot } from '@novelrag/testkit';
import { toolRunnerDefinition } from './service.definition';

describeServiceBoot(toolRunnerDefinition);
