/** File layout of the data branch: one directory per hardware key. What is read back goes through results-file.ts. */

/** A hardware key becomes a directory name, so it must be one plain path segment. */
function checkHardware(hardware: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(hardware)) {
    throw new Error(`store: hardware key "${hardware}" must be a slug (letters, digits, '.', '_', '-')`)
  }
  return hardware
}

export const baselinePath = (hardware: string): string => `${checkHardware(hardware)}/baseline.json`
export const historyPath = (hardware: string): string => `${checkHardware(hardware)}/history.json`

export const serialize = (value: unknown): string => JSON.stringify(value, null, 2) + '\n'
export const dashboardPath = (hardware: string): string => `${checkHardware(hardware)}/index.html`
/** The data branch's root page, listing every hardware key. */
export const ROOT_INDEX_PATH = 'index.html'
