import 'reflect-metadata';
import { describeServiceBoot } from '@novelrag/testkit';
import { resourceServiceDefinition } from './service.definition';

describeServiceBoot(resourceServiceDefinition);
