/**
 * An integral Python float such as `1.0`, `-0.0` or `1e16`.
 *
 * JavaScript has one number type, but the reference keeps `int` and `float` apart: `1` and `1.0`
 * print differently and reach different digests, and `type(x) is int` checks refuse `1.0`.
 * A non-integral number can only be a float, so only integral floats need this tag.
 */
export class PyFloat {
  readonly value: number;

  constructor(value: number) {
    if (!Number.isFinite(value) || !Number.isInteger(value)) {
      throw new TypeError("PyFloat holds a finite integral number");
    }
    this.value = value;
    Object.freeze(this);
  }
}

/** A JSON value as toolgate's strict reader returns it. `bigint` appears only in the reader's bigint mode. */
export type Json = null | boolean | number | string | bigint | PyFloat | Json[] | JsonObject;

/** A JSON object: plain, own keys only; `__proto__` is an ordinary key. */
export interface JsonObject {
  [key: string]: Json;
}
