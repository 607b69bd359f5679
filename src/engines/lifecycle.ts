import type { EngineState, EngineStatus } from './types.js';

/**
 * What an engine says about itself on /readyz, the console and the startup report: its state,
 * why it is not ready, the model it serves (and whether a trusted list vouched for the file) and
 * where it runs. Every engine keeps one and moves it through its states; status() is the one
 * place these become an EngineStatus.
 */
export class EngineLifecycle {
  private currentState: EngineState = 'starting';
  private currentReason: string | undefined;
  private model: string | undefined;
  private verified: boolean | undefined;
  private device: string | undefined;

  /** `startingReason`: what the engine does while it starts, until it is ready or says otherwise. */
  constructor(
    startingReason: string | undefined,
    /** Whether the operator configured this engine; /readyz waits only for configured engines. */
    private readonly configured = true,
  ) {
    this.currentReason = startingReason;
  }

  get state(): EngineState {
    return this.currentState;
  }

  get reason(): string | undefined {
    return this.currentReason;
  }

  become(state: EngineState, reason: string | undefined): void {
    this.currentState = state;
    this.currentReason = reason;
  }

  /** A new reason for the state the engine is in. */
  explain(reason: string): void {
    this.currentReason = reason;
  }

  ready(): void {
    this.become('ready', undefined);
  }

  /** Adds when the next attempt comes to the reason the engine is not ready: "…; retrying in 2 s". */
  willRetry(next: 'retrying' | 'restarting', inMs: number): void {
    this.currentReason = `${this.currentReason ?? 'it did not start'}; ${next} in ${Math.round(inMs / 100) / 10} s`;
  }

  /** The model in use; `verified` is left out where no hash applies to it (a remote model, a packaged file). */
  serves(model: string, verified?: boolean): void {
    this.model = model;
    this.verified = verified;
  }

  runsOn(device: string): void {
    this.device = device;
  }

  status(): EngineStatus {
    return {
      state: this.currentState,
      ...(this.currentReason !== undefined ? { reason: this.currentReason } : {}),
      configured: this.configured,
      ...(this.model !== undefined ? { model: this.model } : {}),
      ...(this.verified !== undefined ? { verified: this.verified } : {}),
      ...(this.device !== undefined ? { device: this.device } : {}),
    };
  }
}
