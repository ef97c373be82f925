import { type LambdaServiceError, pickVersion, validateAliasName, validateRouting } from '../../../local/lambda-routing';

const ARN = 'arn:aws:lambda:us-east-1:000000000000:function:conductor';
const exists = (v: string) => ['$LATEST', '1', '2', '3'].includes(v);

function error(fn: () => void): LambdaServiceError | undefined {
  try {
    fn();
  } catch (err) {
    return err as LambdaServiceError;
  }
  return undefined;
}

describe('validateRouting', () => {
  it('accepts one version, or one extra version with a weight in [0, 1)', () => {
    expect(error(() => validateRouting(ARN, '1', {}, exists))).toBeUndefined();
    expect(error(() => validateRouting(ARN, '1', { '2': 0 }, exists))).toBeUndefined();
    expect(error(() => validateRouting(ARN, '1', { '2': 0.999 }, exists))).toBeUndefined();
    expect(error(() => validateRouting(ARN, '$LATEST', {}, exists))).toBeUndefined();
  });

  it.each([
    ['a weight of 1', '1', { '2': 1 }],
    ['a negative weight', '1', { '2': -0.5 }],
    ['a weight that is no number', '1', { '2': Number.NaN }],
    ['two extra versions', '1', { '2': 0.1, '3': 0.1 }],
    ['$LATEST weighed', '1', { $LATEST: 0.1 }],
    ['weights on an alias of $LATEST', '$LATEST', { '2': 0.1 }],
    ['the alias’s own version as the extra one', '1', { '1': 0.1 }],
  ])('refuses %s (InvalidParameterValueException, 400)', (_, version, weights) => {
    expect(error(() => validateRouting(ARN, version, weights, exists))).toMatchObject({
      name: 'InvalidParameterValueException',
      statusCode: 400,
    });
  });

  it('answers 404 for a version that does not exist, naming it', () => {
    expect(error(() => validateRouting(ARN, '1', { '9': 0.1 }, exists))).toMatchObject({
      name: 'ResourceNotFoundException',
      statusCode: 404,
      message: `Function not found: ${ARN}:9`,
    });
  });
});

describe('pickVersion', () => {
  it('gives the extra version the rolls under its weight and the alias’s version the rest', () => {
    expect(pickVersion('1', { '2': 0.25 }, 0)).toBe('2');
    expect(pickVersion('1', { '2': 0.25 }, 0.2499)).toBe('2');
    expect(pickVersion('1', { '2': 0.25 }, 0.25)).toBe('1');
    expect(pickVersion('1', {}, 0.1)).toBe('1');
  });
});

describe('validateAliasName', () => {
  it('refuses names Lambda refuses: all digits, or other characters', () => {
    expect(error(() => validateAliasName('live'))).toBeUndefined();
    expect(error(() => validateAliasName('blue_green-2'))).toBeUndefined();
    expect(error(() => validateAliasName('12'))).toMatchObject({ name: 'InvalidParameterValueException' });
    expect(error(() => validateAliasName('a:b'))).toMatchObject({ name: 'InvalidParameterValueException' });
  });
});
