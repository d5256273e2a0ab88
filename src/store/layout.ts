/** File layout of the data branch and the checks applied to what is read back from it. */
import { HISTORY_SCHEMA, RESULTS_SCHEMA, type HistoryFile, type ResultsFile } from '../core/results.js'

/** A hardware key becomes a directory name, so it must be one plain path segment. */
function checkHardware(hardware: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(hardware)) {
    throw new Error(`store: hardware key "${hardware}" must be a slug (letters, digits, '.', '_', '-')`)
  }
  return hardware
}

export const baselinePath = (hardware: string): string => `${checkHardware(hardware)}/baseline.json`
export const historyPath = (hardware: string): string => `${checkHardware(hardware)}/history.json`

function parseJson(text: string, where: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new Error(`${where}: not valid JSON (${(error as Error).message})`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${where}: expected a JSON object`)
  return value as Record<string, unknown>
}

export function parseResults(text: string, where: string): ResultsFile {
  const value = parseJson(text, where)
  if (value.schema !== RESULTS_SCHEMA) throw new Error(`${where}: schema is ${JSON.stringify(value.schema)}, expected "${RESULTS_SCHEMA}"`)
  if (typeof value.run !== 'object' || value.run === null || !Array.isArray(value.cells)) {
    throw new Error(`${where}: a results file needs "run" and "cells"`)
  }
  return value as unknown as ResultsFile
}

export function parseHistory(text: string, where: string): HistoryFile {
  const value = parseJson(text, where)
  if (value.schema !== HISTORY_SCHEMA) throw new Error(`${where}: schema is ${JSON.stringify(value.schema)}, expected "${HISTORY_SCHEMA}"`)
  if (!Array.isArray(value.entries)) throw new Error(`${where}: a history file needs "entries"`)
  return value as unknown as HistoryFile
}

export const serialize = (value: unknown): string => JSON.stringify(value, null, 2) + '\n'
