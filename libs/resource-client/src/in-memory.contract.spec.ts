import { describeResourceServiceContract } from './testing';
import { openInMemoryResourceService } from './in-memory-resource-service';

describeResourceServiceContract('in-memory repository', {
  async create() {
    const service = await openInMemoryResourceService();
    return { service, close: () => service.repository.close() };
  },
});
