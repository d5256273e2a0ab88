/** FNV-1a, 32 bits (http://www.isthe.com/chongo/tech/comp/fnv/): a short, stable digest of a text, not a secure one. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}
