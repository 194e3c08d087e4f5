import type { NatsConnection } from '@nats-io/transport-node';
import type { GoalSubmission } from '@novelrag/contracts';
import { ZodError } from 'zod';
import { submitGoal } from './streams';

describe('submitGoal', () => {
  it('rejects an invalid submission (a promise that fails, not a throw its caller must also catch)', async () => {
    const nc = {} as NatsConnection; // never reached: the submission is refused before anything is sent
    let result: Promise<unknown> | undefined;
    expect(() => {
      result = submitGoal(nc, { goalId: 'g-1' } as unknown as GoalSubmission);
    }).not.toThrow();
    await expect(result).rejects.toBeInstanceOf(ZodError);
  });
});
