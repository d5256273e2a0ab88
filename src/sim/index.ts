// CONTRACT STUB — the sim helper replaces the bodies; keep the exported names and shapes.
export interface SimServerOptions {
  /** Profile name (shipped) or path to a profile JSON file. */
  profile: string
  port: number
  host?: string
  /** Divide every modelled duration by this factor (tests; the demo runs at 1). */
  timeScale?: number
  seed?: number
  /** Simulated load time before the port starts listening, in ms (default 0). */
  loadMs?: number
}

export interface SimServer {
  port: number
  close(): Promise<void>
}

export async function startSimServer(_options: SimServerOptions): Promise<SimServer> {
  throw new Error('not implemented')
}

/** `llm-bench-gate sim --profile P --port N [--time-scale X] [--seed S]`: runs until SIGTERM. */
export async function simMain(_argv: string[]): Promise<number> {
  throw new Error('not implemented')
}
