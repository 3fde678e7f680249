// Numbers as the math pages show them: one minus sign (U+2212) in every figure shown, a
// chosen number of decimals, and exact fractions ("n/d", as the API writes them) worked
// on exactly with BigInt.
"use strict";

export const MINUS = "\u2212";

/** `text` with a leading hyphen-minus before a digit made the minus sign. */
export function minus(text) {
  return String(text).replace(/^-(?=[\d.])/, MINUS);
}

/** `value` with `places` decimals (never "−0.00": a zero has no sign). */
export function fixed(value, places = 4) {
  const text = Number(value).toFixed(places);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : minus(text);
}

export function percent(value, places = 4) {
  return `${fixed(100 * value, places)}%`;
}

/** A change in percentage points, signed unless it shows as zero. */
export function points(value, places = 4) {
  const text = fixed(100 * value, places);
  return `${text.startsWith(MINUS) || !/[1-9]/.test(text) ? "" : "+"}${text} pp`;
}

function gcd(a, b) {
  let [x, y] = [a < 0n ? -a : a, b < 0n ? -b : b];
  while (y) [x, y] = [y, x % y];
  return x || 1n;
}

/** An exact fraction from its text ("-3/8", "5", as the API writes it). */
export function fraction(text) {
  const [top, bottom = "1"] = String(text).split("/");
  return reduced(BigInt(top), BigInt(bottom));
}

function reduced(numerator, denominator) {
  const sign = denominator < 0n ? -1n : 1n;
  const divisor = gcd(numerator, denominator);
  return { n: sign * numerator / divisor, d: sign * denominator / divisor };
}

export function difference(a, b) {
  return reduced(a.n * b.d - b.n * a.d, a.d * b.d);
}

/** A fraction as text, its sign the minus sign ("−3/8"; "0"; "+1/4" with `signed`). */
export function fractionText(value, signed = false) {
  const body = value.d === 1n ? `${value.n < 0n ? -value.n : value.n}`
    : `${value.n < 0n ? -value.n : value.n}/${value.d}`;
  if (value.n < 0n) return MINUS + body;
  return signed && value.n > 0n ? `+${body}` : body;
}
