import { describeToolExecutorContract } from '../testing/tool-executor-contract';
import { InProcessToolExecutor } from './in-process-tool-executor';
import { ToolCatalog } from './tool-catalog';

// The reference executor runs the same contract as the remote one (over the bus).
describeToolExecutorContract('in-process', {
  create(tools) {
    return Promise.resolve({
      executor: new InProcessToolExecutor(new ToolCatalog(tools)),
      cleanup: () => Promise.resolve(),
    });
  },
});
