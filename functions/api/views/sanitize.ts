/**
 * Masking secrets the way Ironic does with oslo.utils' `strutils.mask_dict_password`: a value
 * whose key contains one of the sensitive words is replaced, whatever its type; dictionaries are
 * masked recursively. (oslo also masks `--password x`-style text inside other strings; Ironic's
 * node fields do not carry such text, so that part is left out.)
 */

const SENSITIVE = [
  'adminpass',
  'admin_pass',
  'password',
  'admin_password',
  'auth_token',
  'new_pass',
  'auth_password',
  'secret_uuid',
  'secret',
  'sys_pswd',
  'token',
  'configdrive',
  'chappassword',
  'encrypted_key',
  'private_key',
  'fernetkey',
  'sslkey',
  'passphrase',
  'cephclusterfsid',
  'octaviaheartbeatkey',
  'rabbitcookie',
  'cephmanilaclientkey',
  'pacemakerremoteauthkey',
  'designaterndckey',
  'cephadminkey',
  'heatauthencryptionkey',
  'cephclientkey',
  'keystonecredential',
  'barbicansimplecryptokek',
  'cephrgwkey',
  'swifthashsuffix',
  'migrationsshkey',
  'cephmdskey',
  'cephmonkey',
];

export const MASK = '******';

export function maskPasswords(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
      out[key] = maskPasswords(item as Record<string, unknown>);
    } else {
      const lower = key.toLowerCase();
      out[key] = SENSITIVE.some((word) => lower.includes(word)) ? MASK : item;
    }
  }
  return out;
}
