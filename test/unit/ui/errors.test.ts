import { describeError, explainLastError, faultString } from '../../../ui/src/errors';

describe('faultString', () => {
  it("reads Ironic's double-encoded error body", () => {
    const body = JSON.stringify({
      error_message: JSON.stringify({ faultcode: 'Client', faultstring: 'Node x is locked by host y', debuginfo: null }),
    });
    expect(faultString(body)).toBe('Node x is locked by host y');
  });

  it("reads ironic-lib's http_basic refusal and API Gateway's message", () => {
    expect(faultString('{"error": {"message": "Incorrect username or password", "code": 401}}')).toBe('Incorrect username or password');
    expect(faultString('{"message": "Internal server error"}')).toBe('Internal server error');
  });

  it('keeps a non-JSON body as text, and an unreadable inner message as it came', () => {
    expect(faultString('Bad Gateway\n')).toBe('Bad Gateway');
    expect(faultString(JSON.stringify({ error_message: 'plain words' }))).toBe('plain words');
  });
});

describe('describeError', () => {
  it('says what the status means beside the API’s words', () => {
    const body = JSON.stringify({ error_message: JSON.stringify({ faultstring: 'The requested action "provide" can not be performed' }) });
    expect(describeError(400, body)).toEqual({
      title: 'The API refused the request',
      detail: 'The requested action "provide" can not be performed',
    });
    expect(describeError(503, '').title).toContain('conductor');
    expect(describeError(599, '').title).toBe('The API failed (HTTP 599)');
  });
});

describe('explainLastError', () => {
  it('explains a failed step and says what to do from deploy failed', () => {
    const text = explainLastError('Deploy step deploy.write_image failed on node n: the agent reported an error', 'deploy failed');
    expect(text).toContain('A step failed');
    expect(text).toContain('Deploy again once the cause is fixed');
  });

  it('recognises a missing agent callback and a checksum mismatch', () => {
    expect(explainLastError('Timeout reached while waiting for callback for node n')).toContain('never called back');
    expect(explainLastError('Image checksum mismatch: expected a, got b')).toContain('checksum');
  });

  it('says nothing without an error', () => {
    expect(explainLastError(null, 'deploy failed')).toBe('');
    expect(explainLastError('', 'active')).toBe('');
  });
});

describe('explainLastError, most specific first', () => {
  it('reads a failed agent step as a failed step, not as a BMC problem', () => {
    expect(explainLastError('Deploy step deploy.write_image failed on node n. Error executing step: injected fault (redfish-1)')).toContain(
      'A step failed',
    );
  });

  it('reads missing instance_info as missing information, not as a checksum mismatch', () => {
    const text = explainLastError(
      'Failed to prepare to deploy: image_source\'s "image_checksum", or "image_os_hash_algo" and "image_os_hash_value" must be provided in instance_info for node n',
    );
    expect(text).toContain('lacks information');
  });
});
