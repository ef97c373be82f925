/**
 * Updates that lose a conditional write are tried again after jittered, growing pauses (so racing
 * writers spread out instead of retrying in lock step), a bounded number of times, then refused.
 */
import { ConcurrentUpdate, InvalidParameterValue } from '../../../functions/common/errors';
import { CONFLICT_RETRY, retryOnConflict } from '../../../functions/api/lookup';

const sleeps: number[] = [];
const sleep = async (ms: number) => {
  sleeps.push(ms);
};

beforeEach(() => {
  sleeps.length = 0;
});

function losing(times: number) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    attempt: async () => {
      calls++;
      if (calls <= times) throw new ConcurrentUpdate('Node n-1');
      return 'saved';
    },
  };
}

it('answers at once when the first write wins', async () => {
  const op = losing(0);
  await expect(retryOnConflict(op.attempt, sleep)).resolves.toBe('saved');
  expect(op.calls).toBe(1);
  expect(sleeps).toEqual([]);
});

it('pauses a random time under a ceiling that doubles up to its cap', async () => {
  const op = losing(CONFLICT_RETRY.attempts - 1);
  await expect(retryOnConflict(op.attempt, sleep, () => 0.999)).resolves.toBe('saved');
  expect(op.calls).toBe(CONFLICT_RETRY.attempts);
  expect(sleeps).toEqual([19, 39, 79, 159, 319, 399, 399]);
  sleeps.length = 0;
  await retryOnConflict(losing(3).attempt, sleep, () => 0.5);
  expect(sleeps).toEqual([10, 20, 40]);
});

it('gives up with the conflict after the last attempt', async () => {
  const op = losing(100);
  await expect(retryOnConflict(op.attempt, sleep)).rejects.toBeInstanceOf(ConcurrentUpdate);
  expect(op.calls).toBe(CONFLICT_RETRY.attempts);
  expect(sleeps).toHaveLength(CONFLICT_RETRY.attempts - 1);
});

it('does not retry other errors', async () => {
  let calls = 0;
  const attempt = async () => {
    calls++;
    throw new InvalidParameterValue('bad');
  };
  await expect(retryOnConflict(attempt, sleep)).rejects.toBeInstanceOf(InvalidParameterValue);
  expect(calls).toBe(1);
});
