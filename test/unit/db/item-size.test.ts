/**
 * DynamoDB's refusals of an item over 400 KB, told apart from other validation errors and from
 * cancelled transactions for other reasons (the integration suite provokes the real one).
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { itemSizeError } from '../../../functions/db/client';

const validation = (message: string) => Object.assign(new Error(message), { name: 'ValidationException' });
const cancelled = (reasons: { Code: string; Message?: string }[]) =>
  new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: reasons });

it('finds the size refusal in a ValidationException or in a transaction’s cancellation reasons', () => {
  expect(itemSizeError(validation('Item size has exceeded the maximum allowed size'))).toBe(
    'Item size has exceeded the maximum allowed size',
  );
  expect(itemSizeError(validation('Item size to update has exceeded the maximum allowed size'))).toMatch(/to update/);
  expect(
    itemSizeError(cancelled([{ Code: 'None' }, { Code: 'ValidationError', Message: 'Item size has exceeded the maximum allowed size' }])),
  ).toBe('Item size has exceeded the maximum allowed size');
});

it('leaves every other error alone', () => {
  expect(itemSizeError(validation('One or more parameter values were invalid'))).toBeUndefined();
  expect(itemSizeError(cancelled([{ Code: 'ConditionalCheckFailed' }]))).toBeUndefined();
  expect(itemSizeError(new Error('Item size has exceeded the maximum allowed size'))).toBeUndefined();
  expect(itemSizeError(undefined)).toBeUndefined();
});
