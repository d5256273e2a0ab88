/**
 * The hardware key baselines are stored and compared under (never across keys): the `hardware`
 * input, else the matrix file's `hardware`, else the GPU name from nvidia-smi, else `cpu`.
 */
import { execFile } from 'node:child_process'

export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/^nvidia\s+/, 'nvidia ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

/** GPU name of the first device, slugged (`NVIDIA GB10` → `nvidia-gb10`); `cpu` when there is no GPU. */
export function detectHardware(timeoutMs = 5000): Promise<string> {
  return new Promise((resolve) => {
    execFile('nvidia-smi', ['--query-gpu=name', '--format=csv,noheader'], { timeout: timeoutMs }, (error, stdout) => {
      const first = error
        ? ''
        : (stdout
            .split('\n')
            .map((l) => l.trim())
            .find(Boolean) ?? '')
      resolve(first ? slug(first) : 'cpu')
    })
  })
}

export async function hardwareKey(input: string, config: string | undefined, detect = detectHardware): Promise<string> {
  if (input) return input
  if (config) return config
  return detect()
}
