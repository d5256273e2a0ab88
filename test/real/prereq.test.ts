import { describe, expect, it } from 'vitest'
import { chromium, docker, llamaCpp, podman } from './prereq.js'

// Every prerequisite of the suite, checked first so a missing one is one clear failure.
describe('real-engine suite prerequisites', () => {
  it('has the llama.cpp server and both models', () => {
    expect(llamaCpp().server).toMatch(/llama-server$/)
  })
  it('has podman and the offline engine image', () => {
    expect(podman().version).toMatch(/^podman version \d/)
  })
  it('has a docker daemon and the offline engine image', () => {
    expect(docker().version).toMatch(/^\d+\.\d+/)
  })
  it('has chromium', () => {
    expect(chromium().version).toMatch(/Chromium \d+/)
  })
})
