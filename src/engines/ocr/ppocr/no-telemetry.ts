/**
 * onnxruntime (1.30 on Linux) records usage telemetry unless told not to: a device ID, the
 * process's path, its runs and system metrics, kept in ~/.cache/Microsoft/DeveloperTools and
 * queued for upload to its vendor's collector, with a log file per process in /tmp. Nothing leaves
 * the hospital, so it is switched off for this process. Native code reads the process's real
 * environment, which a worker thread cannot change (its process.env is its own copy): the main
 * thread imports this before it starts the workers that load onnxruntime, and so does every
 * module that loads it.
 */
process.env.ORT_DISABLE_TELEMETRY = '1';
