/**
 * A new object holding `base`'s keys, then `keys`' (what `{ ...base, ...keys }` holds), built
 * with Object.assign onto an empty literal. On Node 20's V8 a literal that spreads an object and
 * then lists more keys (`{ ...base, a, b }`) adds each listed key on a slow path, 10 to 100
 * times the cost of a literal's (a 20-key blog post cost 19 us: bench/README.md, "What the benchmarks taught");
 * read models build a document like this per event and the replay benchmark counts every one.
 */
export function copyWith<Base extends object, Keys extends object>(
  base: Base,
  keys: Keys,
): { [K in keyof (Base & Keys)]: (Base & Keys)[K] } {
  return Object.assign({}, base, keys);
}
