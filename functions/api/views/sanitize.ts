/**
 * Masking secrets the way Ironic does with oslo.utils' `strutils.mask_dict_password`: a value
 * whose key contains one of the sensitive words is replaced, whatever its type; dictionaries are
 * masked recursively; and any other string value has secrets written inside it masked
 * (`password=x`, `--password x`, `"token": "x"`, … — oslo's `mask_password`).
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

/**
 * The shapes in which a secret appears inside text, for a sensitive word `k`: each has the text
 * before the secret in group 1 and, for the two-group shapes, the text after it in group 2.
 */
const AROUND = (k: string): RegExp[] =>
  [
    `(${k}[0-9]*\\s*[=]\\s*["'])[^"']*(["'])`,
    `(${k}[0-9]*\\s*[=]\\s*["])[^"]*(["])`,
    `(${k}[0-9]*\\s*[=]\\s*['])[^']*(['])`,
    `(${k}[0-9]*\\s+["'])[^"']*(["'])`,
    `([-]{2}${k}[0-9]*\\s+)[^'^"^=^\\s]+([\\s]*)`,
    `(<${k}[0-9]*>)[^<]*(</${k}[0-9]*>)`,
    `(["']${k}[0-9]*["']\\s*:\\s*["'])[^"']*(["'])`,
    `(['"][^"']*${k}[0-9]*['"]\\s*:\\s*u?['"])[^"']*(['"])`,
    `(['"][^'"]*${k}[0-9]*['"]\\s*,\\s*'--?[A-z]+'\\s*,\\s*u?['"])[^"']*(['"])`,
    `(${k}[0-9]*\\s*--?[A-z]+\\s*)\\S+(\\s*)`,
  ].map((p) => new RegExp(p, 'gis'));
const AFTER = (k: string): RegExp => new RegExp(`(${k}[0-9]*\\s*[=]\\s*)[^\\s^'^"]+`, 'gis');
const QUOTED_TAIL = (k: string): RegExp => new RegExp(`(['"][^"']*${k}[0-9]*['"]\\s*:\\s*u?['"].*['"])[^"']*(['"])`, 'gis');

const PATTERNS = new Map(SENSITIVE.map((k) => [k, { around: AROUND(k), after: AFTER(k), tail: QUOTED_TAIL(k) }]));

/** oslo's `mask_password`: secrets written inside a text. */
export function maskPasswordText(message: string, secret = MASK): string {
  let out = message;
  for (const key of SENSITIVE) {
    if (!out.toLowerCase().includes(key)) continue;
    const patterns = PATTERNS.get(key)!;
    for (const re of patterns.around) out = out.replace(re, (_m, a: string, b: string) => `${a}${secret}${b}`);
    out = out.replace(patterns.after, (_m, a: string) => `${a}${secret}`);
    out = out.replace(patterns.tail, (_m, a: string) => a);
  }
  return out;
}

export function maskPasswords(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
      out[key] = maskPasswords(item as Record<string, unknown>);
      continue;
    }
    const lower = key.toLowerCase();
    if (SENSITIVE.some((word) => lower.includes(word))) out[key] = MASK;
    else out[key] = typeof item === 'string' ? maskPasswordText(item) : item;
  }
  return out;
}
