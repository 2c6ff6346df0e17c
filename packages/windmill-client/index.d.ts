// The `windmill-client` name for Sluice's `sluice/windmill` entry point: seed code imports it unchanged.
export * from "sluice/windmill";
