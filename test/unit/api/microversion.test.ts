import { HttpError } from '../../../functions/common/errors';
import { negotiate } from '../../../functions/api/microversion';

const max = { major: 1, minor: 82 };

describe('negotiate', () => {
  it('defaults to 1.1 and resolves latest to the maximum', () => {
    expect(negotiate({}, max)).toEqual({ major: 1, minor: 1 });
    expect(negotiate({ 'x-openstack-ironic-api-version': 'latest' }, max)).toEqual(max);
    // Ironic 21.4 ignores the generic header.
    expect(negotiate({ 'openstack-api-version': 'baremetal 1.50' }, max)).toEqual({ major: 1, minor: 1 });
  });

  it.each([
    [
      '1.83',
      'Version 1.83 was requested but the minor version is not supported by this service. The supported version range is: [1.1, 1.82].',
    ],
    [
      '2.1',
      'Mutually exclusive versions requested. Version 2.1 requested but not supported by this service. The supported version range is: [1.1, 1.82].',
    ],
    ['abc', 'Invalid value for X-OpenStack-Ironic-API-Version header'],
    [
      '1.0',
      'Version 1.0 was requested but the minor version is not supported by this service. The supported version range is: [1.1, 1.82].',
    ],
  ])('refuses %s with 406', (asked, message) => {
    let error: unknown;
    try {
      negotiate({ 'x-openstack-ironic-api-version': asked }, max);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(406);
    expect((error as HttpError).message).toBe(message);
  });

  it('caps at a pinned release’s maximum', () => {
    expect(() => negotiate({ 'x-openstack-ironic-api-version': '1.82' }, { major: 1, minor: 78 })).toThrow('[1.1, 1.78]');
  });
});
