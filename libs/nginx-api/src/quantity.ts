/** Kubernetes quantity suffixes and the factor each stands for (binary SI, decimal SI; exponents are parsed). */
const SUFFIXES = new Map<string, number>([
  ['Ki', 2 ** 10],
  ['Mi', 2 ** 20],
  ['Gi', 2 ** 30],
  ['Ti', 2 ** 40],
  ['Pi', 2 ** 50],
  ['Ei', 2 ** 60],
  ['n', 1e-9],
  ['u', 1e-6],
  ['m', 1e-3],
  ['', 1],
  ['k', 1e3],
  ['M', 1e6],
  ['G', 1e9],
  ['T', 1e12],
  ['P', 1e15],
  ['E', 1e18],
]);

const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;

/**
 * The value of a Kubernetes resource quantity (`500m`, `1.5Gi`, `2e3`, `10`) as a number, or NaN when the text
 * is not a quantity. Doubles are exact enough to compare quantities, not to do arithmetic on large ones.
 */
export function quantityValue(text: string): number {
  const match = QUANTITY.exec(text.trim());
  if (!match) return NaN;
  const [, number, exponent, suffix = ''] = match;
  return exponent ? Number(`${number}${exponent}`) : Number(number) * SUFFIXES.get(suffix)!;
}
