/**
 * The bytes of a GGUF tensor from its ggml type: elements come in blocks of `block` elements stored in `bytes`
 * bytes each (ggml-org/ggml `src/ggml.c`, `type_traits[]`: `blck_size` and `type_size`; the block structs in
 * `src/ggml-common.h`, QK_K = 256). Type ids are `enum ggml_type` in `include/ggml.h`; ids 4, 5 and 31–33, 36–38
 * were removed from GGUF files.
 */

const QK_K = 256

/** ggml type id → [name, elements per block, bytes per block]. */
export const GGML_TYPES: Readonly<Record<number, readonly [string, number, number]>> = {
  0: ['F32', 1, 4],
  1: ['F16', 1, 2],
  2: ['Q4_0', 32, 18],
  3: ['Q4_1', 32, 20],
  6: ['Q5_0', 32, 22],
  7: ['Q5_1', 32, 24],
  8: ['Q8_0', 32, 34],
  9: ['Q8_1', 32, 36],
  10: ['Q2_K', QK_K, 84],
  11: ['Q3_K', QK_K, 110],
  12: ['Q4_K', QK_K, 144],
  13: ['Q5_K', QK_K, 176],
  14: ['Q6_K', QK_K, 210],
  15: ['Q8_K', QK_K, 292],
  16: ['IQ2_XXS', QK_K, 66],
  17: ['IQ2_XS', QK_K, 74],
  18: ['IQ3_XXS', QK_K, 98],
  19: ['IQ1_S', QK_K, 50],
  20: ['IQ4_NL', 32, 18],
  21: ['IQ3_S', QK_K, 110],
  22: ['IQ2_S', QK_K, 82],
  23: ['IQ4_XS', QK_K, 136],
  24: ['I8', 1, 1],
  25: ['I16', 1, 2],
  26: ['I32', 1, 4],
  27: ['I64', 1, 8],
  28: ['F64', 1, 8],
  29: ['IQ1_M', QK_K, 56],
  30: ['BF16', 1, 2],
  34: ['TQ1_0', QK_K, 54],
  35: ['TQ2_0', QK_K, 66],
  39: ['MXFP4', 32, 17],
}

/** Bytes of a tensor of `dims` elements (ne0 first) in ggml type `type`; throws for a type or shape ggml refuses. */
export function ggmlTensorBytes(type: number, dims: readonly number[], name: string): number {
  const known = GGML_TYPES[type]
  if (!known) throw new Error(`tensor ${JSON.stringify(name)} has ggml type ${type}, which this reader does not know`)
  const [typeName, block, bytes] = known
  const rowElements = dims[0] ?? 1
  if (rowElements % block)
    throw new Error(
      `tensor ${JSON.stringify(name)}: a row of ${rowElements} is not whole ${typeName} blocks of ${block}`,
    )
  const rows = dims.slice(1).reduce((a, b) => a * b, 1)
  return (rowElements / block) * bytes * rows
}
