/**
 * Workflows as code (seed 000): the API importable as `windmill-client` by user
 * modules that Sluice loads, and from `sluice` directly.
 */
export { workflow, isWacWorkflow } from "./workflow.js";
export type { WacWorkflow } from "./workflow.js";
export { task, taskScript, taskFlow, validateTaskOptions } from "./task.js";
export type { TaskFn, PathTask } from "./task.js";
export { step, sleep, waitForApproval, getResumeUrls, parallel } from "./primitives.js";
export { TaskError } from "./task-error.js";
export { NotInWorkflowError } from "./host.js";
export type { TaskOptions, ApprovalOptions, ApprovalResult, ResumeUrls } from "./types.js";
// Pipelines (seed 001): object storage, resources, data tables and volumes.
export {
  writeS3File,
  loadS3File,
  loadS3FileStream,
  parseS3Object,
  S3FileContent,
  S3ObjectNotFoundError,
} from "./s3.js";
export type { S3Object } from "./s3.js";
export {
  getResource,
  setResource,
  datatable,
  ducklake,
  writeVolumeFile,
  loadVolumeFile,
  volumePath,
  getPartition,
  DucklakeUnavailableError,
} from "./data.js";
export type { SqlQuery, SqlTemplateFunction } from "./data.js";
export { AssetStorageUnavailableError } from "./asset-host.js";
