/**
 * Jobs on the scheduler: stage graph validation, the job state machine, task placement on
 * executors, retries and re-runs after failures and executor loss, and job status streams.
 */
package dev.quiver.scheduler.job;
