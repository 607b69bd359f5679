export { describeExit, STOP_GRACE_MS } from './exit.js';
export { describeFailure, runTool, type ToolOutcome, type ToolRun } from './run-tool.js';
export { Supervisor, type ChildExit, type SupervisedModule, type SupervisorBackoff, type SupervisorHooks } from './supervisor.js';
export { siblingModule, siblingWorker } from './module-entry.js';
export { raiseWorkerOldSpaceFloor } from './worker-heap.js';
export { childProcessMemory, residentBytes, type ChildMemory } from './memory.js';
