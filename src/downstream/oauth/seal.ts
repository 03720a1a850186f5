import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { HintgateError } from '../../core/errors.js';

/** The setting that holds the secret, for messages. */
export const SECRET_KEY_SETTING = 'HINTGATE_SECRET_KEY (or `secretKey` in the config)';

const VERSION = 'v1';
// A fixed, versioned salt: the secret is the deployment's own; the salt only separates this
// use of it from any other.
const SALT = 'hintgate/oauth-credentials/v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals and opens hintgate's stored OAuth credential documents: AES-256-GCM (node:crypto),
 * a fresh 96-bit IV per seal, the key derived once from the configured secret with scrypt.
 * Each document is bound to its place (server and principal) as additional authenticated
 * data, so a sealed document copied to another row does not open.
 */
export class Sealer {
  readonly #key: Buffer;

  private constructor(key: Buffer) {
    this.#key = key;
  }

  /** A sealer for a secret of at least 16 characters; CONFIG_INVALID naming the setting otherwise. */
  static fromSecret(secret: string): Sealer {
    if (secret.length < 16) {
      throw new HintgateError(
        'CONFIG_INVALID',
        `${SECRET_KEY_SETTING}: expected a secret of at least 16 characters (for example the output of \`openssl rand -base64 32\`)`,
      );
    }
    return new Sealer(scryptSync(secret, SALT, 32));
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, base64url. */
  seal(plaintext: string, place: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(place, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, iv, tag, body]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** The plaintext of a sealed document; CONFIG_INVALID when it does not open with this key. */
  open(sealed: string, place: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) {
      throw new HintgateError(
        'CONFIG_INVALID',
        `a stored OAuth credential (${place}) is not in a format this hintgate reads`,
      );
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(place, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(body, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new HintgateError(
        'CONFIG_INVALID',
        `a stored OAuth credential (${place}) does not open with the configured ${SECRET_KEY_SETTING}: the secret changed since it was stored`,
      );
    }
  }
}

/** The error for storing or reading tokens without a secret key. */
export function secretKeyMissing(doing: string): HintgateError {
  return new HintgateError(
    'CONFIG_INVALID',
    `cannot ${doing}: OAuth tokens are stored encrypted and no secret key is set; set ${SECRET_KEY_SETTING} to a secret of at least 16 characters (for example the output of \`openssl rand -base64 32\`)`,
  );
}
