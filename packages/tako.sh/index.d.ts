// The `tako.sh` name for Sluice's `sluice/tako` entry point: seed code imports it unchanged.
export * from "sluice/tako";
